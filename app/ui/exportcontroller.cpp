#include "exportcontroller.h"

#include "core/statusexport.h"
#include "models/eventlogmodel.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>
#include <QWidget>

namespace leader::console {

ExportController::ExportController(QWidget *window)
    : QObject(window)
    , m_window(window)
{}

ExportController::~ExportController() = default;

void ExportController::exportStatus(const StatusSnapshot &snapshot, bool haveSnapshot,
                                    TimeZoneMode zone)
{
    if (!haveSnapshot) {
        Q_EMIT exported(tr("Nothing to export yet: no poll has answered"));
        return;
    }
    // The chosen filter is told by which of ours it is, not by its (translated) words.
    const QString jsonFilter = tr("JSON (*.json)");
    QString filter;
    const QString path = QFileDialog::getSaveFileName(
            m_window, tr("Export status"), QStringLiteral("leader-status.csv"),
            tr("CSV (*.csv)") + QStringLiteral(";;") + jsonFilter, &filter);
    if (path.isEmpty())
        return;
    const bool json
            = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) || filter == jsonFilter;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(json ? statusToJson(snapshot, zone) : statusToCsv(snapshot, zone)) < 0
        || !file.commit()) {
        QMessageBox::warning(m_window, tr("Export failed"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
        return;
    }
    Q_EMIT exported(tr("Status exported to %1").arg(path));
}

void ExportController::exportEvents(const QAbstractItemModel *model)
{
    exportTable(model, tr("Export event log"), QStringLiteral("leader-events.csv"),
                tr("Event log exported to %1"));
}

void ExportController::exportPauseLog(const QAbstractItemModel *model)
{
    exportTable(model, tr("Export pause history"), QStringLiteral("leader-pause-history.csv"),
                tr("Pause history exported to %1"));
}

void ExportController::exportTable(const QAbstractItemModel *model, const QString &title,
                                   const QString &fileName, const QString &done)
{
    const QString path = QFileDialog::getSaveFileName(m_window, title, fileName, tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    QString error;
    if (!file.open(QIODevice::WriteOnly) || !exportCsv(&file, model, &error) || !file.commit()) {
        QMessageBox::warning(m_window, tr("Export failed"),
                             tr("Could not write %1: %2")
                                     .arg(path, error.isEmpty() ? file.errorString() : error));
        return;
    }
    Q_EMIT exported(done.arg(path));
}

} // namespace leader::console
