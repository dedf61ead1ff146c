#pragma once

#include "core/statustypes.h"
#include "core/timerule.h"
#include "models/agethresholds.h"
#include "models/health.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QString>

namespace leader::console {

struct ReplicaInfo;

// leader_status as a table, one row per role, updated in place from each poll: when the role set
// is unchanged only the cells that changed are announced (one dataChanged per changed row, first
// to last changed column, with the roles that changed).
class StatusModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StatusModel)

public:
    enum Column {
        Role,
        State,
        Health, // healthOf() the row with the model's thresholds, stale flag and age origins
        Holder,
        Token,
        Acquired,
        ExpiresIn,
        LastTickAge,
        PausedBy,
        PausedAt,
        PauseReason,
        NotBefore,
        // The last recorded tick (migration 0184): its outcome ("lost (paused)") and how long it
        // ran; empty on an older schema. The tooltip says when, by whom, the failed step and the
        // error, and the hour's counts.
        LastOutcome,
        Took,
        // How much work waits (migration 0186's registered source): "12 · oldest 3m 05s", "error"
        // when the source failed, empty with none; the tooltip says what is counted, in full.
        Backlog,
        ColumnCount
    };
    enum ItemRole {
        // Sortable raw value: seconds as double, token as qint64, instants as epoch ms, text as
        // itself (the holder as shown), int(Health) in rising concern, the backlog's pending
        // count as qint64; an unknown age, expiry or count is null. Also the sort role.
        RawRole = Qt::UserRole,
        // int(ageLevelOf()) of the row's last-tick age, on the LastTickAge column: Neutral, and
        // uncoloured, while the role is paused or starting.
        AgeLevelRole,
    };

    explicit StatusModel(QObject *parent = nullptr);
    ~StatusModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setSnapshot(const leader::console::StatusSnapshot &snapshot);
    void clear();
    const StatusSnapshot &snapshot() const { return m_snapshot; }
    // Since when each role's age is judged, as of the last snapshot; cleared with the rows.
    const AgeOrigins &ageOrigins() const { return m_origins; }

    // Stale: the rows are the last ones received, not live; every cell is drawn in the palette's
    // disabled text colour, without the state and age colours that would claim otherwise.
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    // Times in the rule's zone, named in the headers; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);

    void setThresholds(const AgeThresholds &thresholds);
    const AgeThresholds &thresholds() const { return m_thresholds; }

    // The Holder column shows a holder id by its name here (the demo's replica, "r2"), the full id
    // in the tooltip; ids not named are shown as they are. Replaces the names set before.
    void setHolderNames(const QHash<QString, QString> &holderIdToName);
    const QHash<QString, QString> &holderNames() const { return m_holderNames; }

    QString roleAt(int row) const;        // empty when out of range
    int rowOf(const QString &role) const; // -1 when absent
    std::optional<RoleStatus> statusFor(const QString &role) const;
    AgeLevel ageLevel(const QString &role) const; // ageLevelOf() the row; Unknown for none

    // "12.3 s", "4 min 2 s", "2 h 5 min": how the table writes a duration.
    static QString formatSeconds(double seconds);
    // What is left of a pause that ends by itself: "35 s", "42 min", "3 h 5 min".
    static QString formatRemaining(double seconds);
    // The last tick's outcome as the Outcome column writes it: "completed", "lost (paused)";
    // empty when none was recorded.
    static QString outcomeText(const leader::console::RoleStatus &status);
    // "12 completed, 1 lost, 0 failed, 0 interrupted", with " (ours only)" when holders outside
    // the registry led the role in the hour (they record no tick); empty without the counts.
    static QString hourText(const leader::console::RoleStatus &status);
    // Why the hour's counts are ours only, one sentence.
    static QString oursOnlyText();
    // A holder outside the registry (extension 0189) in full: what it takes and does not, and
    // its last tick of the role when one was seen.
    static QString outsideHolderText(const leader::console::RoleStatus &status);
    // A short age for a narrow cell: "45s", "3m 05s", "2h 05m", "3d 04h".
    static QString formatShortAge(double seconds);
    // The Backlog cell: "12 · oldest 3m 05s", "0", "error".
    static QString backlogText(const leader::console::RoleBacklog &backlog);
    // The backlog in full: "12 due subscriptions waiting, the oldest for 3 min 5 s", or the
    // source's error.
    static QString backlogDetail(const leader::console::RoleBacklog &backlog);
    // The Health cell's text (translatable): "OK", "starting", "paused", "warn", "alert",
    // "stale".
    static QString healthText(leader::console::Health health);

private:
    QVariant display(const RoleStatus &status, int column) const;
    // The Holder cell: its name or id, marked "outside:" outside the registry.
    QString holderText(const RoleStatus &status) const;
    QVariant raw(const RoleStatus &status, int column) const;
    QVariant toolTip(const RoleStatus &status, int column) const;
    QString healthToolTip(const RoleStatus &status) const;
    QString thresholdsText(const QString &role) const;
    leader::console::Health health(const RoleStatus &status) const;
    AgeLevel rowAgeLevel(const RoleStatus &status) const;
    static bool cellDiffers(const RoleStatus &before, const RoleStatus &after, int column);
    TimeZoneMode zone() const { return m_timeRule.zone(); }
    QString fullTime(const QDateTime &time) const;
    void timeRuleChanged();

    StatusSnapshot m_snapshot;
    AgeOrigins m_origins;
    AgeThresholds m_thresholds = AgeThresholds::defaults();
    bool m_stale = false;
    TimeRuleBinding m_timeRule;
    QHash<QString, QString> m_holderNames;
};

// Each hosted replica's holder id to its id ("vm:29601:7014df0c" to "r2").
QHash<QString, QString> holderNamesOf(const QList<ReplicaInfo> &replicas);

} // namespace leader::console
