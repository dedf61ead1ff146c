#pragma once

#include "core/statustypes.h"
#include "core/timerule.h"

#include <QObject>

class QAbstractItemModel;
class QWidget;

namespace leader::console {

// File > Export: asks where, writes atomically (QSaveFile: a failed export leaves no half file),
// and says how it went in one line.
class ExportController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExportController)

public:
    explicit ExportController(QWidget *window);
    ~ExportController() override;

    // The last poll's rows as CSV or JSON; nothing to export before the first poll.
    void exportStatus(const StatusSnapshot &snapshot, bool haveSnapshot, TimeZoneMode zone);
    // The event log as shown (filtered), as CSV.
    void exportEvents(const QAbstractItemModel *model);
    // The pause log as shown (filtered), as CSV.
    void exportPauseLog(const QAbstractItemModel *model);

Q_SIGNALS:
    void exported(const QString &message);

private:
    // A table as shown, as CSV (exportCsv: times in ISO 8601 with the offset).
    void exportTable(const QAbstractItemModel *model, const QString &title, const QString &fileName,
                     const QString &done);

    QWidget *m_window;
};

} // namespace leader::console
