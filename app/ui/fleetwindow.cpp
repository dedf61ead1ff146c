#include "fleetwindow.h"

#include "closewhenidle.h"
#include "connectionbanner.h"
#include "core/consolesession.h"
#include "core/profilestore.h"
#include "mainwindow.h"
#include "models/agethresholds.h"
#include "models/fleetmodel.h"
#include "models/plaintext.h"
#include "tableview.h"

#include <QCloseEvent>
#include <QHeaderView>
#include <QInputDialog>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace leader::console {

FleetWindow::FleetWindow(ConsoleOptions options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
    , m_model(new FleetModel(this))
    , m_tabs(new QTabWidget)
{
    setObjectName(QStringLiteral("fleetWindow"));
    m_model->setObjectName(QStringLiteral("fleetModel"));
    {
        AgeThresholds thresholds = AgeThresholds::defaults();
        QSettings settings;
        thresholds.load(settings);
        m_model->setThresholds(thresholds);
    }

    m_overview = makeTableView(QStringLiteral("fleetOverview"), m_model);
    m_overview->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_overview->setToolTip(tr("Double-click a database to open its tab"));
    connect(m_overview, &QTableView::activated, this,
            [this](const QModelIndex &index) { showPage(index.row()); });
    m_tabs->setObjectName(QStringLiteral("fleetTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_overview, tr("Overview"));
    setCentralWidget(m_tabs);

    QMenu *fileMenu = menuBar()->addMenu(tr("&Fleet"));
    QAction *add
            = fileMenu->addAction(tr("&Add a saved profile…"), this, &FleetWindow::addSavedProfile);
    add->setObjectName(QStringLiteral("addDatabaseAction"));
    QAction *remove = fileMenu->addAction(tr("&Close this database's tab"), this,
                                          &FleetWindow::closeCurrentDatabase);
    remove->setObjectName(QStringLiteral("closeDatabaseAction"));
    QAction *overview = fileMenu->addAction(tr("&Overview"), this,
                                            [this] { m_tabs->setCurrentWidget(m_overview); });
    overview->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fileMenu->addSeparator();
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [this, remove](int index) { remove->setEnabled(index > 0); });
    remove->setEnabled(false);

    for (const ConsoleOptions::FleetMember &member : std::as_const(m_options.fleet))
        addDatabase(member);
    updateTitle();
    resize(1440, 900);
}

FleetWindow::~FleetWindow() = default;

MainWindow *FleetWindow::addDatabase(const ConsoleOptions::FleetMember &member)
{
    ConsoleOptions options;
    options.mode
            = member.isProfile ? ConsoleOptions::Mode::Profile : ConsoleOptions::Mode::Database;
    (member.isProfile ? options.profileName : options.databaseUrl) = member.value;
    options.readOnly = m_options.readOnly;
    options.role = m_options.role;
    auto *page = new MainWindow(options);
    m_tabs->addTab(page, page->windowTitle());
    m_pages.append(page);
    m_model->addDatabase(page->windowTitle(), page->target());

    // Rows follow pages: a closed tab removes its row, so look the row up each time.
    const auto row = [this, page] {
        return int(m_pages.indexOf(page));
    };
    ConsoleSession *session = page->session();
    connect(session, &ConsoleSession::snapshot, this,
            [this, row](const StatusSnapshot &snapshot) { m_model->setSnapshot(row(), snapshot); });
    connect(session, &ConsoleSession::connectionChanged, this,
            [this, row](ConnectionState state, const QString &message) {
                m_model->setConnection(row(), state, message);
            });
    connect(session, &ConsoleSession::staleChanged, this,
            [this, row](bool stale) { m_model->setStale(row(), stale); });
    connect(session, &ConsoleSession::takeover, this,
            [this, row](const Failover &takeover) { m_model->addTakeover(row(), takeover); });
    connect(page, &QWidget::windowTitleChanged, this, [this, page, row](const QString &title) {
        m_tabs->setTabText(m_tabs->indexOf(page), title);
        m_model->setTitle(row(), title, page->target());
    });
    connect(session, &ConsoleSession::finished, this, [this, page] { onPageFinished(page); });
    // A database that cannot be reached is marked on its tab, to be seen from any other; the tab
    // itself says why and offers Retry now and Edit… — nothing opens over the other databases.
    if (auto *banner = page->findChild<ConnectionBanner *>()) {
        connect(banner, &ConnectionBanner::changed, this, [this, page, banner] {
            const int index = m_tabs->indexOf(page);
            m_tabs->setTabIcon(index, banner->isFailing()
                                              ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                              : QIcon());
            m_tabs->setTabToolTip(index, plainToolTip(banner->text()));
        });
    }
    return page;
}

void FleetWindow::start()
{
    for (MainWindow *page : std::as_const(m_pages))
        page->start();
    if (!m_options.screenshotPath.isEmpty())
        QTimer::singleShot(m_options.screenshotAfterSeconds * 1000, this,
                           &FleetWindow::takeScreenshot);
}

void FleetWindow::addSavedProfile()
{
    QStringList open;
    for (const ConsoleOptions::FleetMember &member : std::as_const(m_options.fleet)) {
        if (member.isProfile)
            open << member.value;
    }
    QStringList names;
    for (const QString &name : ProfileStore().names()) {
        if (!open.contains(name))
            names << name;
    }
    if (names.isEmpty()) {
        statusBar()->showMessage(tr("Every saved profile is open; save another with a tab's File "
                                    "→ Connect to a database…"),
                                 10000);
        return;
    }
    bool ok = false;
    const QString name = QInputDialog::getItem(this, tr("Add a database"), tr("Saved profile:"),
                                               names, 0, false, &ok);
    if (!ok || name.isEmpty())
        return;
    const ConsoleOptions::FleetMember member{true, name};
    m_options.fleet.append(member);
    MainWindow *page = addDatabase(member);
    page->start();
    m_tabs->setCurrentWidget(page);
    updateTitle();
}

void FleetWindow::closeCurrentDatabase()
{
    auto *page = qobject_cast<MainWindow *>(m_tabs->currentWidget());
    if (!page)
        return;
    const int row = int(m_pages.indexOf(page));
    m_pages.removeAt(row);
    m_options.fleet.removeAt(row);
    m_model->removeDatabase(row);
    m_tabs->removeTab(m_tabs->indexOf(page));
    // Its session stops its workers within its bound and then the page goes.
    connect(page->session(), &ConsoleSession::finished, page, &QObject::deleteLater);
    page->close();
    updateTitle();
}

void FleetWindow::showPage(int row)
{
    if (row >= 0 && row < m_pages.size())
        m_tabs->setCurrentWidget(m_pages.at(row));
}

QString FleetWindow::titleFor(int databases)
{
    // Spelt out: the console ships no translation that would turn "%n database(s)" into words.
    return databases == 1 ? tr("Fleet — 1 database") : tr("Fleet — %1 databases").arg(databases);
}

void FleetWindow::updateTitle()
{
    setWindowTitle(titleFor(int(m_pages.size())));
}

void FleetWindow::onPageFinished(MainWindow *page)
{
    if (!m_closing)
        return;
    page->close();
    if (!anyPageWorking())
        close();
}

bool FleetWindow::anyPageWorking() const
{
    return std::any_of(m_pages.cbegin(), m_pages.cend(),
                       [](const MainWindow *page) { return page->session()->hasWorkers(); });
}

void FleetWindow::takeScreenshot()
{
    if (!grab().save(m_options.screenshotPath))
        qWarning("leader-console: cannot write the screenshot to %s",
                 qPrintable(m_options.screenshotPath));
    close();
}

void FleetWindow::closeEvent(QCloseEvent *event)
{
    // Each tab's session ends its workers within its bound; the last to finish closes this.
    if (!startShutdownOnClose(event, anyPageWorking(), m_closing))
        return;
    setEnabled(false);
    statusBar()->showMessage(tr("Closing: stopping each database's poller…"));
    for (MainWindow *page : std::as_const(m_pages))
        page->close();
}

} // namespace leader::console
