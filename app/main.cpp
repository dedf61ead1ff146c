// leader-console: the operator's desktop console over leader_status, with the embedded demo.

#include "core/commandline.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QTextStream>

#include <cstdio>

int main(int argc, char *argv[])
{
    QApplication application(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("leader-console"));
    QApplication::setApplicationName(QStringLiteral("leader-console"));
    QApplication::setApplicationDisplayName(QStringLiteral("Leader Console"));
    QApplication::setApplicationVersion(QStringLiteral(LEADER_CONSOLE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("leader-console"));

    const leader::console::CommandLineResult parsed
            = leader::console::parseCommandLine(QApplication::arguments());
    if (!parsed.options) {
        if (!parsed.output.isEmpty())
            QTextStream(stdout) << parsed.output;
        if (!parsed.error.isEmpty())
            QTextStream(stderr) << "leader-console: " << parsed.error << '\n';
        return parsed.exitCode;
    }

    leader::console::MainWindow window(*parsed.options);
    window.show();
    window.start();
    return QApplication::exec();
}
