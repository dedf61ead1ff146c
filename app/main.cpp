// leader-console: the operator's desktop console over leader_status, with the embedded demo.

#include "core/commandline.h"
#include "core/privatefiles.h"
#include "core/queued.h"
#include "core/systemmessages.h"
#include "platform/control.h"
#include "ui/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QIcon>
#include <QTextStream>

#include <atomic>
#include <memory>
#include <thread>

namespace {

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("leader-console"));
    QCoreApplication::setApplicationName(QStringLiteral("leader-console"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LEADER_CONSOLE_VERSION));
}

} // namespace

int main(int argc, char *argv[])
{
    // Before any thread exists, so every thread inherits the mask and only the watcher below takes
    // SIGTERM and SIGINT.
    leader::platform::blockTerminationSignals();

    // Parsed before any window system is touched: --help, --version and a wrong argument answer on
    // a machine without a display.
    leader::console::CommandLineResult parsed;
    {
        QCoreApplication parsing(argc, argv);
        setIdentity();
        parsed = leader::console::parseCommandLine(QCoreApplication::arguments());
    }
    if (!parsed.options) {
        if (!parsed.output.isEmpty())
            QTextStream(stdout) << parsed.output;
        if (!parsed.error.isEmpty())
            QTextStream(stderr) << "leader-console: " << parsed.error << '\n';
        return parsed.exitCode;
    }

    QApplication application(argc, argv);
    leader::console::useEnglishSystemMessages();
    setIdentity();
    // Before any window reads or writes a setting; it warns itself of what it could not change.
    leader::console::ensurePrivateConsoleFiles();
    QApplication::setApplicationDisplayName(QStringLiteral("Leader Console"));
    QApplication::setDesktopFileName(QStringLiteral("com.hardcount.LeaderConsole"));
    QApplication::setWindowIcon(QIcon::fromTheme(
            QStringLiteral("leader-console"), QIcon(QStringLiteral(":/icons/leader-console.png"))));

    // Several databases open as a fleet, one tab each; one database or the demo in a window.
    std::unique_ptr<QMainWindow> windowOwner;
    if (parsed.options->mode == leader::console::ConsoleOptions::Mode::Fleet)
        windowOwner = std::make_unique<leader::console::FleetWindow>(*parsed.options);
    else
        windowOwner = std::make_unique<leader::console::MainWindow>(*parsed.options);
    QMainWindow &window = *windowOwner;
    // SIGTERM (a logout, systemd, kill) and Ctrl-C close the window as a click would, so the
    // embedded demo releases its leases and stops its server; a second one ends the process at
    // once.
    std::atomic_bool exiting = false;
    std::thread terminationWatcher([&window, &exiting] {
        bool closeRequested = false;
        for (;;) {
            const std::string signal = leader::platform::waitForTermination();
            if (exiting)
                return;
            if (closeRequested) {
                QTextStream(stderr) << "leader-console: " << signal.c_str()
                                    << " again: exiting without stopping the demo\n";
                leader::platform::killThisProcess();
            }
            closeRequested = true;
            leader::console::postTo(&window, &QWidget::close);
        }
    });
    window.show();
    if (auto *fleet = qobject_cast<leader::console::FleetWindow *>(&window))
        fleet->start();
    else
        static_cast<leader::console::MainWindow &>(window).start();
    const int exitCode = QApplication::exec();
    exiting = true;
    leader::platform::requestTermination();
    terminationWatcher.join();
    return exitCode;
}
