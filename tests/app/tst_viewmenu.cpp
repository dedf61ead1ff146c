// View menu: the theme and the time zone chosen there apply at once and persist, so a new window
// (a new menu over a restored rule) starts with the same choice checked.

#include "core/timerule.h"
#include "ui/viewmenu.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::Theme)
Q_DECLARE_METATYPE(leader::console::TimeZoneMode)

class ViewMenuTest final : public QObject
{
    Q_OBJECT

private:
    static QAction *action(const QMenu &menu, const QString &name)
    {
        return menu.findChild<QAction *>(name);
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }

    void timeZonePersistsAndApplies_data()
    {
        QTest::addColumn<QString>("actionName");
        QTest::addColumn<TimeZoneMode>("zone");
        QTest::addColumn<QString>("saved");
        QTest::newRow("utc") << "utcAction" << TimeZoneMode::Utc << "utc";
        QTest::newRow("local") << "localTimeAction" << TimeZoneMode::Local << "local";
    }

    void timeZonePersistsAndApplies()
    {
        QFETCH(QString, actionName);
        QFETCH(TimeZoneMode, zone);
        QFETCH(QString, saved);
        // Start from the other zone, so that the choice is a change.
        const TimeZoneMode other
                = zone == TimeZoneMode::Utc ? TimeZoneMode::Local : TimeZoneMode::Utc;
        QSettings().setValue(QStringLiteral("view/timeZone"), TimeRule::modeName(other));
        {
            TimeRule rule;
            rule.restore();
            QMenu menu;
            new ViewMenu(&menu, &rule);
            QVERIFY(!action(menu, actionName)->isChecked());
            QSignalSpy changed(&rule, &TimeRule::changed);
            action(menu, actionName)->trigger();
            QCOMPARE(rule.mode(), zone);
            QCOMPARE(changed.count(), 1);
            QVERIFY(action(menu, actionName)->isChecked());
            QCOMPARE(QSettings().value(QStringLiteral("view/timeZone")).toString(), saved);
        }
        TimeRule rule;
        rule.restore();
        QCOMPARE(rule.mode(), zone);
        QMenu menu;
        new ViewMenu(&menu, &rule);
        QVERIFY(action(menu, actionName)->isChecked());
    }

    void zoneCheckFollowsTheRule()
    {
        TimeRule rule;
        QMenu menu;
        new ViewMenu(&menu, &rule);
        QVERIFY(action(menu, QStringLiteral("localTimeAction"))->isChecked());
        rule.setMode(TimeZoneMode::Utc);
        QVERIFY(action(menu, QStringLiteral("utcAction"))->isChecked());
        QVERIFY(!action(menu, QStringLiteral("localTimeAction"))->isChecked());
    }

    void themePersistsAndApplies_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<bool>("dark");
        QTest::newRow("dark") << Theme::Dark << true;
        QTest::newRow("light") << Theme::Light << false;
    }

    void themePersistsAndApplies()
    {
        QFETCH(Theme, theme);
        QFETCH(bool, dark);
        const QString name = themeName(theme) + QLatin1String("ThemeAction");
        {
            TimeRule rule;
            QMenu menu;
            auto *view = new ViewMenu(&menu, &rule);
            QVERIFY(action(menu, QStringLiteral("systemThemeAction"))->isChecked());
            QSignalSpy changed(view, &ViewMenu::themeChanged);
            action(menu, name)->trigger();
            QCOMPARE(changed.count(), 1);
            QCOMPARE(changed.at(0).at(0).value<Theme>(), theme);
            QCOMPARE(isDark(QApplication::palette()), dark);
        }
        QCOMPARE(ViewMenu::savedTheme(), theme);
        // A new window restores it: the check mark and the palette.
        applyTheme(Theme::System);
        TimeRule rule;
        QMenu menu;
        auto *view = new ViewMenu(&menu, &rule);
        QVERIFY(action(menu, name)->isChecked());
        view->restoreTheme();
        QCOMPARE(isDark(QApplication::palette()), dark);
        applyTheme(Theme::System);
    }
};

QTEST_MAIN(ViewMenuTest)
#include "tst_viewmenu.moc"
