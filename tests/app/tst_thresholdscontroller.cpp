// Role > Age thresholds: what the dialog accepts is saved, announced once and loaded by the next
// controller (the next start); what it rejects or cancels changes nothing.

#include "ui/thresholdscontroller.h"
#include "ui/thresholdsdialog.h"

#include <QDoubleSpinBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

using namespace leader::console;

class ThresholdsControllerTest final : public QObject
{
    Q_OBJECT

private:
    QWidget m_window;

    ThresholdsDialog *dialog() const { return m_window.findChild<ThresholdsDialog *>(); }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }
    void cleanup()
    {
        while (ThresholdsDialog *open = dialog())
            delete open;
    }

    void startsFromTheDefaults()
    {
        ThresholdsController controller(&m_window);
        QCOMPARE(controller.thresholds(), AgeThresholds::defaults());
    }

    void acceptedThresholdsPersist_data()
    {
        QTest::addColumn<QString>("role");
        QTest::addColumn<double>("warn");
        QTest::addColumn<double>("alert");
        QTest::newRow("billing") << "billing" << 200.0 << 400.0;
        QTest::newRow("email_outbox") << "email_outbox" << 5.0 << 7.5;
    }

    void acceptedThresholdsPersist()
    {
        QFETCH(QString, role);
        QFETCH(double, warn);
        QFETCH(double, alert);
        {
            ThresholdsController controller(&m_window);
            QSignalSpy changed(&controller, &ThresholdsController::changed);
            controller.edit();
            QVERIFY(dialog());
            QCOMPARE(dialog()->alertSpin(role)->value(),
                     AgeThresholds::defaults().threshold(role).alertSeconds);
            dialog()->warnSpin(role)->setValue(warn);
            dialog()->alertSpin(role)->setValue(alert);
            dialog()->accept();
            QCOMPARE(changed.count(), 1);
            const AgeThreshold chosen{warn, alert};
            QCOMPARE(changed.at(0).at(0).value<AgeThresholds>().threshold(role), chosen);
            QCOMPARE(controller.thresholds().threshold(role), chosen);
            QTRY_VERIFY(!dialog()); // deleted on close
        }
        ThresholdsController restarted(&m_window);
        QCOMPARE(restarted.thresholds().threshold(role), (AgeThreshold{warn, alert}));
        // The dialog opens on what was saved.
        restarted.edit();
        QCOMPARE(dialog()->warnSpin(role)->value(), warn);
    }

    void invalidOrCancelledChangesNothing()
    {
        ThresholdsController controller(&m_window);
        QSignalSpy changed(&controller, &ThresholdsController::changed);
        const QString role = QStringLiteral("dunning");
        controller.edit();
        dialog()->alertSpin(role)->setValue(dialog()->warnSpin(role)->value()); // alert = warn
        dialog()->accept();
        QVERIFY(dialog()->isVisible());
        dialog()->reject();
        QCOMPARE(changed.count(), 0);
        QCOMPARE(controller.thresholds(), AgeThresholds::defaults());
        QVERIFY(!QSettings().childGroups().contains(QStringLiteral("thresholds")));
    }
};

QTEST_MAIN(ThresholdsControllerTest)
#include "tst_thresholdscontroller.moc"
