// The console by keyboard (offscreen, the real MainWindow in demo mode, not started): each
// shortcut the Help menu promises triggers its action when pressed on the window; Help → Keyboard
// shortcuts lists every action's shortcut, read from the actions themselves; the quick filter
// narrows the status table to the roles holding its text and Esc clears it; the focused table's
// current row is ringed in the light and the dark theme, selected or not.
// Checked failing once: without the filter, tab and help actions their rows fail (no action);
// with the filter not wired to the proxy the row count stays 5; without the ring (Qt's own focus
// rectangle) no pixel of the row's edge takes the ring's colours.

#include "lease/roles.h"
#include "models/statusmodel.h"
#include "ui/mainwindow.h"
#include "ui/shortcutsdialog.h"
#include "ui/theme.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <memory>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::Theme)

namespace {

StatusSnapshot fiveRoles()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    StatusSnapshot snapshot;
    snapshot.databaseTime = now;
    snapshot.receivedAt = now;
    for (const std::string_view name : leader::lease::Roles) {
        RoleStatus status;
        status.role = QString::fromLatin1(name.data(), qsizetype(name.size()));
        status.state = RoleState::Led;
        status.holderId = QStringLiteral("vm:1:0b75130b");
        status.lastTickEndedAt = now;
        status.lastTickAgeSeconds = 1.0;
        snapshot.roles.append(status);
    }
    return snapshot;
}

// Pixels of colour in the band of the row's top edge, away from its text.
int edgePixels(const QImage &image, const QRect &row, const QColor &colour)
{
    int count = 0;
    for (int y = row.top(); y <= row.top() + 3; ++y) {
        for (int x = 10; x < std::min(image.width(), 200); ++x) {
            if (image.pixelColor(x, y).rgb() == colour.rgb())
                ++count;
        }
    }
    return count;
}

} // namespace

class KeyboardTest final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    QAction *action(const QString &name) const { return m_window->findChild<QAction *>(name); }
    QTableView *statusView() const
    {
        return m_window->findChild<QTableView *>(QStringLiteral("statusView"));
    }
    QLineEdit *filter() const
    {
        return m_window->findChild<QLineEdit *>(QStringLiteral("statusFilter"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("mainWindow"));
        m_window = std::make_unique<MainWindow>(ConsoleOptions{});
        m_window->resize(1440, 900);
        m_window->show();
        QApplication::setActiveWindow(m_window.get());
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->findChild<StatusModel *>()->setSnapshot(fiveRoles());
    }

    void cleanupTestCase() { m_window.reset(); }

    void init()
    {
        statusView()->setFocus();
        QTRY_VERIFY(statusView()->hasFocus());
    }

    void shortcutTriggersItsAction_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QKeySequence>("keys");
        QTest::newRow("pause") << "pauseAction" << QKeySequence(Qt::CTRL | Qt::Key_P);
        QTest::newRow("unpause") << "unpauseAction"
                                 << QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P);
        QTest::newRow("refresh") << "refreshAction" << QKeySequence(Qt::Key_F5);
        QTest::newRow("filter") << "filterAction" << QKeySequence(Qt::CTRL | Qt::Key_F);
        QTest::newRow("next tab") << "nextTabAction" << QKeySequence(Qt::CTRL | Qt::Key_PageDown);
        QTest::newRow("previous tab")
                << "previousTabAction" << QKeySequence(Qt::CTRL | Qt::Key_PageUp);
        QTest::newRow("help") << "shortcutsAction" << QKeySequence(Qt::Key_F1);
    }
    void shortcutTriggersItsAction()
    {
        QFETCH(QString, name);
        QFETCH(QKeySequence, keys);
        QAction *target = action(name);
        QVERIFY2(target, qPrintable(name));
        QVERIFY(target->shortcuts().contains(keys));
        // Pause and unpause wait for a connection and a selected role: enabled here, the key's
        // way to the action is what is tested (with no role selected they open nothing).
        target->setEnabled(true);
        QSignalSpy triggered(target, &QAction::triggered);
        QTest::keySequence(m_window.get(), keys);
        QCOMPARE(triggered.count(), 1);
        if (auto *dialog = m_window->findChild<ShortcutsDialog *>())
            dialog->close();
    }

    void tabsFollowTheKeys()
    {
        auto *tabs = m_window->findChild<QTabWidget *>(QStringLiteral("tabs"));
        QVERIFY(tabs && tabs->count() >= 2);
        tabs->setCurrentIndex(0);
        QTest::keyClick(m_window.get(), Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(tabs->currentIndex(), 1);
        QTest::keyClick(m_window.get(), Qt::Key_PageUp, Qt::ControlModifier);
        QTest::keyClick(m_window.get(), Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(tabs->currentIndex(), tabs->count() - 1); // round to the last
    }

    void helpListsEveryShortcut()
    {
        QTest::keyClick(m_window.get(), Qt::Key_F1);
        ShortcutsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<ShortcutsDialog *>()) && dialog->isVisible());
        auto *table = dialog->findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QVERIFY(table);
        QStringList listed;
        for (int row = 0; row < table->rowCount(); ++row)
            listed << table->item(row, 0)->text() + QLatin1String(" = ")
                              + table->item(row, 1)->text();
        const QString all = listed.join(QLatin1Char('\n'));
        for (const QAction *each : m_window->findChildren<QAction *>()) {
            for (const QKeySequence &keys : each->shortcuts()) {
                if (!each->text().isEmpty())
                    QVERIFY2(all.contains(keys.toString(QKeySequence::NativeText)),
                             qPrintable(each->objectName() + QLatin1Char(' ') + keys.toString()));
            }
        }
        for (const char *promised : {"Pause", "Unpause", "Refresh now", "Filter roles", "Next tab",
                                     "Previous tab", "Keyboard shortcuts", "Open the Help menu"})
            QVERIFY2(all.contains(QLatin1String(promised)), promised);
        dialog->close();
    }

    void quickFilter()
    {
        QAbstractItemModel *rows = statusView()->model();
        QCOMPARE(rows->rowCount(), 5);
        QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(filter()->hasFocus());
        QTest::keyClicks(filter(), QStringLiteral("OUT"));
        QCOMPARE(rows->rowCount(), 2); // email_outbox, webhook_outbox: case does not matter
        QTest::keyClick(filter(), Qt::Key_Escape);
        QCOMPARE(filter()->text(), QString());
        QCOMPARE(rows->rowCount(), 5);
        QTRY_VERIFY(statusView()->hasFocus());
    }

    void focusIsVisible_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<bool>("selected");
        QTest::newRow("light") << Theme::Light << false;
        QTest::newRow("light, selected") << Theme::Light << true;
        QTest::newRow("dark") << Theme::Dark << false;
        QTest::newRow("dark, selected") << Theme::Dark << true;
    }
    void focusIsVisible()
    {
        QFETCH(Theme, theme);
        QFETCH(bool, selected);
        applyTheme(theme);
        QTableView *view = statusView();
        const QModelIndex first = view->model()->index(0, 0);
        view->selectionModel()->clearSelection();
        view->selectionModel()->setCurrentIndex(
                first, selected ? QItemSelectionModel::SelectCurrent | QItemSelectionModel::Rows
                                : QItemSelectionModel::NoUpdate);
        const QRect row = view->visualRect(first);
        // On the base colour the ring's outer line shows; on the selection's fill, its inner one.
        const QColor ring = view->palette().color(
                QPalette::Active, selected ? QPalette::HighlightedText : QPalette::Highlight);
        QTRY_VERIFY(view->hasFocus());
        QVERIFY2(edgePixels(view->viewport()->grab().toImage(), row, ring) > 50,
                 "no ring with the focus");
        m_window->findChild<QLineEdit *>(QStringLiteral("statusFilter"))->setFocus();
        QTRY_VERIFY(!view->hasFocus());
        QCOMPARE(edgePixels(view->viewport()->grab().toImage(), row, ring), 0);
        applyTheme(Theme::System);
    }
};

QTEST_MAIN(KeyboardTest)
#include "tst_keyboard.moc"
