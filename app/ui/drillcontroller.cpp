#include "drillcontroller.h"

#include "agechart.h"
#include "core/consolesession.h"
#include "core/drillrunner.h"
#include "drillchart.h"
#include "thresholdscontroller.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QImage>
#include <QMainWindow>
#include <QSaveFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTextStream>
#include <QTimer>

namespace leader::console {

namespace {

QString writeFile(const QString &path, const QByteArray &contents)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(contents) != contents.size()
        || !file.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

const QString ChartFile = QStringLiteral("chart.png");

} // namespace

DrillController::DrillController(QMainWindow *window, ConsoleSession *session,
                                 const ConsoleOptions &options)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_runner(new DrillRunner(session, this))
    , m_action(new QAction(tr("Run &drill"), this))
    , m_headless(!options.drillReportDir.isEmpty())
{
    m_action->setObjectName(QStringLiteral("runDrillAction"));
    m_action->setToolTip(tr("Kill, freeze and sever the holder of billing and pause billing, once "
                            "each, and write a report of the takeovers"));
    m_action->setVisible(options.mode == ConsoleOptions::Mode::Demo && !options.readOnly);
    // --drill-after: the single kill of the billing holder, as the failure panel's Kill would.
    if (options.drillAfterSeconds > 0) {
        connect(session, &ConsoleSession::demoStarted, this, [session, options] {
            QTimer::singleShot(options.drillAfterSeconds * 1000, session,
                               &ConsoleSession::runDrill);
        });
    }
    connect(session, &ConsoleSession::drillVictim, this,
            [this](const QString &replica, const QStringList &leading) {
                Q_EMIT logged(tr("killing %1 (leads %2)")
                                      .arg(replica, leading.join(QStringLiteral(", "))));
                Q_EMIT victimChosen(replica);
            });
    connect(m_action, &QAction::triggered, this, [this] {
        run(QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                    .filePath(QStringLiteral("drills/")
                              + QDateTime::currentDateTimeUtc().toString(
                                      QStringLiteral("yyyyMMdd-HHmmss"))));
    });
    connect(session, &ConsoleSession::replicasChanged, this, &DrillController::updateAction);
    connect(session, &ConsoleSession::demoStopped, this, &DrillController::updateAction);
    connect(m_runner, &DrillRunner::progress, this,
            [this](const QString &step) { m_window->statusBar()->showMessage(step, 20000); });
    connect(m_runner, &DrillRunner::finished, this, &DrillController::writeReport);
    connect(m_runner, &DrillRunner::failed, this, &DrillController::onFailed);
    updateAction();

    if (m_headless) {
        // The process ends when the demo has stopped, with the drill's exit code, not when the
        // window closes.
        QApplication::setQuitOnLastWindowClosed(false);
        connect(session, &ConsoleSession::finished, this,
                [this] { QCoreApplication::exit(m_exitCode); });
        // What a person would read in the status bar and the log, for the job's own log: a drill
        // that fails says which step waited for what, and what the demo said of each fault.
        connect(m_runner, &DrillRunner::progress, this, [](const QString &step) {
            QTextStream(stderr) << "leader-console: " << step << '\n';
        });
        connect(session, &ConsoleSession::demoEvent, this, [](const EventLogEntry &entry) {
            if (entry.event == EventKind::Fault || entry.event == EventKind::Takeover
                || entry.event == EventKind::NoTakeover || entry.event == EventKind::FaultMissed)
                QTextStream(stderr) << "leader-console: demo: " << entry.detail << '\n';
        });
        QTimer::singleShot(0, this, [this, directory = options.drillReportDir] { run(directory); });
    }
}

DrillController::~DrillController() = default;

void DrillController::updateAction()
{
    bool up = false;
    for (const ReplicaInfo &replica : m_session->replicas())
        up = up || replica.state == ReplicaState::Running;
    m_action->setEnabled(up && m_session->isDemoRunning() && !m_runner->isRunning());
}

void DrillController::run(const QString &directory)
{
    if (m_runner->isRunning())
        return;
    m_directory = QDir(directory).absolutePath();
    Q_EMIT logged(tr("drill started; the report goes to %1").arg(m_directory));
    m_runner->start();
    updateAction();
}

void DrillController::writeReport(const DrillResult &result)
{
    updateAction();
    QString error;
    if (!QDir().mkpath(m_directory))
        error = tr("cannot create the directory %1").arg(m_directory);
    const QDir directory(m_directory);
    if (error.isEmpty()) {
        const QString path = directory.filePath(ChartFile);
        if (!chartImage(result).save(path, "PNG"))
            error = tr("cannot write the chart to %1").arg(path);
    }
    if (error.isEmpty())
        error = writeFile(directory.filePath(QStringLiteral("report.md")),
                          drillMarkdown(result, ChartFile).toUtf8());
    if (error.isEmpty())
        error = writeFile(directory.filePath(QStringLiteral("report.json")), drillJson(result));
    if (!error.isEmpty()) {
        onFailed(error);
        return;
    }
    const QString line = tr("drill report in %1: %2").arg(m_directory, result.summary());
    Q_EMIT logged(line);
    m_window->statusBar()->showMessage(tr("Drill report written to %1").arg(m_directory), 60000);
    if (!m_headless)
        return;
    if (result.boundsMet() && result.auditPassed())
        endHeadless(0, line);
    else
        endHeadless(1, line);
}

QImage DrillController::chartImage(const DrillResult &result) const
{
    // Drawn off-screen from the history the Age tab keeps, over the drill's own range, not
    // grabbed from the tab: its window is minutes wide and has the window selector in it.
    const auto *chart = m_window->findChild<AgeChart *>();
    const auto *thresholds = m_window->findChild<ThresholdsController *>();
    DrillChart drillChart(result,
                          (thresholds ? thresholds->thresholds() : AgeThresholds::defaults())
                                  .threshold(result.role));
    if (chart && chart->history())
        drillChart.setCurves(DrillChart::curvesFrom(*chart->history(), drillChart.rangeStart(),
                                                    drillChart.rangeEnd()));
    return drillChart.render();
}

void DrillController::onFailed(const QString &message)
{
    updateAction();
    Q_EMIT logged(tr("drill failed: %1").arg(message));
    if (m_headless)
        endHeadless(1, tr("drill failed: %1").arg(message));
}

void DrillController::endHeadless(int exitCode, const QString &line)
{
    m_exitCode = exitCode;
    QTextStream(exitCode == 0 ? stdout : stderr) << "leader-console: " << line << '\n';
    m_window->close();
    // A session that never started has nothing to stop and says nothing more.
    if (!m_session->hasWorkers())
        QCoreApplication::exit(exitCode);
}

} // namespace leader::console
