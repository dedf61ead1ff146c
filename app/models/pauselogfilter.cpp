#include "pauselogfilter.h"

#include "pauselogmodel.h"

namespace leader::console {

PauseLogFilter::PauseLogFilter(QObject *parent)
    : ColumnFilter(parent)
{}

QString PauseLogFilter::role() const
{
    return required(PauseLogModel::Role);
}

void PauseLogFilter::setRole(const QString &role)
{
    setRequired(PauseLogModel::Role, role);
}

} // namespace leader::console
