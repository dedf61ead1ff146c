#pragma once

#include "core/commandline.h"
#include "core/drillreport.h"

#include <QObject>
#include <QString>

class QAction;
class QImage;
class QMainWindow;

namespace leader::console {

class ConsoleSession;
class DrillRunner;

// Role → Run drill (the demo only): runs the DrillRunner, then writes report.md, report.json and
// the drill's chart (DrillChart, drawn from the Age tab's history) as chart.png into a new
// directory under the application's data location, and says where. With --drill-report DIR it runs
// once the demo is up, writes into DIR, closes the window (the demo stops as on any close) and ends
// the process: 0 when every takeover met its bound and the auditor passed, else 1 with one line on
// stderr.
class DrillController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DrillController)

public:
    DrillController(QMainWindow *window, ConsoleSession *session, const ConsoleOptions &options);
    ~DrillController() override;

    QAction *runAction() const { return m_action; }

Q_SIGNALS:
    void logged(const QString &detail);        // for the event log
    void victimChosen(const QString &replica); // the --drill-after kill's: show it being killed

private:
    void run(const QString &directory);
    void updateAction();
    void writeReport(const DrillResult &result);
    QImage chartImage(const DrillResult &result) const;
    void onFailed(const QString &message);
    void endHeadless(int exitCode, const QString &line);

    QMainWindow *m_window;
    ConsoleSession *m_session;
    DrillRunner *m_runner;
    QAction *m_action;
    QString m_directory;
    bool m_headless = false;
    int m_exitCode = 0;
};

} // namespace leader::console
