// leader-console: the operator's desktop console over leader_status, with the embedded demo.

#include "core/commandline.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QIcon>
#include <QTextStream>

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
    setIdentity();
    QApplication::setApplicationDisplayName(QStringLiteral("Leader Console"));
    QApplication::setDesktopFileName(QStringLiteral("com.hardcount.LeaderConsole"));
    QApplication::setWindowIcon(QIcon::fromTheme(
            QStringLiteral("leader-console"), QIcon(QStringLiteral(":/icons/leader-console.png"))));

    leader::console::MainWindow window(*parsed.options);
    window.show();
    window.start();
    return QApplication::exec();
}
