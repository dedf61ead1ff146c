#pragma once

#include "core/demotypes.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QPointer>
#include <QSet>
#include <QStringList>

namespace leader::console {

class EventLogModel;

// The event log as the dock shows it. By default, notable and alert events each on their line,
// and each role's routine events (acquired, released, handover, state: every tick of an outbox)
// folded into one line that counts them, updated in place; a notable or alert event about the
// role closes that line, and its next routine events count on a new one after it, so the log
// still reads in order. With routine shown, every event of the log on its own line.
// The columns are EventLogModel's.
class EventFoldModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventFoldModel)

public:
    // Any column: how many events a folded line stands for; 0 on an event's own line.
    static constexpr int FoldedCountRole = Qt::UserRole + 3;

    explicit EventFoldModel(QObject *parent = nullptr);

    // Not owned.
    void setLog(EventLogModel *log);
    EventLogModel *log() const { return m_log; }
    bool showsRoutine() const { return m_showRoutine; }
    void setShowRoutine(bool show);

    // Every role and every event kind the log has held so far, folded ones too, sorted.
    QStringList roles() const;
    QStringList kinds() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // The log's headers; ExportNoteRole says which view this is.
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // A role or a kind seen for the first time.
    void vocabularyChanged();

private:
    struct Row
    {
        qint64 sequence = 0; // the log's entry; a folded line's first entry
        int folded = 0;      // 0: the entry's own line
        QString role;
        QDateTime firstTime;
        QDateTime lastTime;
        QString lastSource;
        EventKind lastEvent = EventKind::Acquired;
        QString lastDetail;
        qint64 lastToken = 0;
        QStringList sources;
        QMap<QString, int> kinds; // kind -> count, in name order
    };

    void rebuild();
    // The log's row, appended: a line of its own or one more on its role's folded line.
    void take(int logRow, bool notify);
    void onRowsInserted(int first, int last);
    void onRowsRemoved(int first);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                       const QList<int> &roles);
    void onHeaderDataChanged(Qt::Orientation orientation, int first, int last);
    // The row showing the entry (or the fold starting at it); -1 when none.
    int rowOf(qint64 sequence) const;
    QVariant foldedData(const Row &row, int column, int role) const;

    QPointer<EventLogModel> m_log;
    QList<QMetaObject::Connection> m_connections;
    bool m_showRoutine = false;
    QList<Row> m_rows;             // in the log's order
    QHash<QString, qint64> m_open; // role -> sequence of its folded line still counting
    QSet<QString> m_roles;
    QSet<QString> m_kinds;
};

} // namespace leader::console
