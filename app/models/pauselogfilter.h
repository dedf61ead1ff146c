#pragma once

#include "columnfilter.h"

namespace leader::console {

// What the History view shows of a PauseLogModel: one role's rows (empty: every role) with the
// text in any column (ColumnFilter).
class PauseLogFilter final : public ColumnFilter
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseLogFilter)

public:
    explicit PauseLogFilter(QObject *parent = nullptr);

    QString role() const;
    void setRole(const QString &role);
};

} // namespace leader::console
