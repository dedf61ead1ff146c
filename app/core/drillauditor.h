#pragma once

#include "core/connectionprofile.h"
#include "core/drillreport.h"

#include <QDateTime>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <stop_token>

namespace leader::console {

// What the drill's audit read from the demo's database.
struct DrillAudit
{
    QString serverVersion;
    QMap<QString, qint64> refusals; // claims the fence refused since the drill's first fault
    QList<DrillInvariant> invariants;
    QString error; // the audit could not run to its end: one line
};

// The drill's last step, on ConsoleSession's demo thread (ConsoleSession::auditDrill): counts the
// claims the fence refused since the drill's first fault and runs the demo auditor on the demo's
// database. Engine errors end here, as DrillAudit::error.
class DrillAuditor final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DrillAuditor)

public:
    using QObject::QObject;

    // Blocks this thread while it reads (each statement bounded); emits audited() unless stop was
    // requested, which cancels the statement in flight.
    void audit(const ConnectionProfile &database, const QDateTime &since, std::stop_token stop);

Q_SIGNALS:
    void audited(const leader::console::DrillAudit &audit);
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::DrillAudit)
