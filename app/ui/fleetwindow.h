#pragma once

#include "core/commandline.h"

#include <QList>
#include <QMainWindow>

class QTabWidget;
class QTableView;

namespace leader::console {

class FleetModel;
class MainWindow;

// Several databases at once: an overview of each (its environment colour, connection, worst role,
// paused roles, last takeover) and one tab per database with the single window's own views. Each
// tab's session polls in its own worker thread, so one slow or dead database delays no other.
class FleetWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetWindow)

public:
    // options.fleet names the databases; readOnly and role apply to each.
    explicit FleetWindow(ConsoleOptions options, QWidget *parent = nullptr);
    ~FleetWindow() override;

    void start();
    QList<MainWindow *> pages() const { return m_pages; }
    FleetModel *model() const { return m_model; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    MainWindow *addDatabase(const ConsoleOptions::FleetMember &member);
    void addSavedProfile();
    void closeCurrentDatabase();
    void showPage(int row);
    void onPageFinished(MainWindow *page);
    bool anyPageWorking() const; // a tab's session still running or shutting down
    void updateTitle();
    static QString titleFor(int databases); // "Fleet — 1 database", "Fleet — 3 databases"
    void takeScreenshot();

    ConsoleOptions m_options;
    FleetModel *m_model = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableView *m_overview = nullptr;
    QList<MainWindow *> m_pages; // in the model's row order
    bool m_closing = false;
};

} // namespace leader::console
