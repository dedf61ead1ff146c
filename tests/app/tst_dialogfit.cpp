// ui/dialogfit on the dialogs without a test of their own (the pause and connection dialogs check
// it in theirs): the thresholds and the preferences dialog keep their title whole and their lines
// uncut, on the light and the dark theme, and their hints are in the alert tone of the theme.

#include "fitcheck.h"
#include "models/tones.h"
#include "ui/dialogfit.h"
#include "ui/preferencesdialog.h"
#include "ui/theme.h"
#include "ui/thresholdsdialog.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QStandardPaths>
#include <QTest>

#include <memory>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::Theme)

class DialogFitTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void titleBarWidthGrowsWithTheTitle()
    {
        QDialog dialog;
        dialog.setWindowTitle(QStringLiteral("Pause"));
        const int shortTitle = titleBarWidth(&dialog);
        dialog.setWindowTitle(QStringLiteral("Pause webhook_delivery and 4 more roles"));
        QVERIFY(titleBarWidth(&dialog) > shortTitle);
        // Room for the bar's icon and buttons beside the text.
        QFont bold = dialog.font();
        bold.setBold(true);
        QVERIFY(titleBarWidth(&dialog)
                > QFontMetrics(bold).horizontalAdvance(dialog.windowTitle()) + 60);
    }

    void dialogsFit_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<QString>("dialog");
        for (const Theme theme : {Theme::Light, Theme::Dark}) {
            for (const char *dialog : {"thresholds", "thresholds with its hint", "preferences"})
                QTest::addRow("%s %s", qPrintable(themeName(theme)), dialog) << theme << dialog;
        }
    }

    // Checked once: without fitToContents the thresholds dialog is 300 px wide for a title that
    // needs 329.
    void dialogsFit()
    {
        QFETCH(Theme, theme);
        QFETCH(QString, dialog);
        applyTheme(theme);
        const auto restore = qScopeGuard([] { applyTheme(Theme::System); });
        std::unique_ptr<QDialog> shown;
        if (dialog.startsWith(QLatin1String("thresholds")))
            shown = std::make_unique<ThresholdsDialog>();
        else
            shown = std::make_unique<PreferencesDialog>();
        shown->show();
        QVERIFY(QTest::qWaitForWindowExposed(shown.get()));
        if (dialog.endsWith(QLatin1String("hint"))) {
            // An alert before its warning: the hint says so under the table.
            auto *thresholds = static_cast<ThresholdsDialog *>(shown.get());
            const QString role = ThresholdsDialog::roles().constFirst();
            thresholds->warnSpin(role)->setValue(thresholds->alertSpin(role)->value() + 10);
            auto *hint = shown->findChild<QLabel *>(QStringLiteral("hintLabel"));
            QVERIFY(hint && hint->isVisible());
            // Checked once: fails with the former fixed red (2.5:1 on the dark theme's window).
            const QColor color = hint->palette().color(QPalette::WindowText);
            QVERIFY(color != QApplication::palette().color(QPalette::WindowText));
            QVERIFY2(contrastRatio(color, hint->palette().color(QPalette::Window)) >= 4.5,
                     qPrintable(color.name()));
        }
        QTRY_VERIFY2(fitcheck::whatDoesNotFit(*shown).isEmpty(),
                     qPrintable(fitcheck::whatDoesNotFit(*shown)));
    }
};

QTEST_MAIN(DialogFitTest)

#include "tst_dialogfit.moc"
