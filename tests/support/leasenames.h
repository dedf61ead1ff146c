#pragma once

#include "lease/events.h"

#include <QByteArray>

#include <optional>
#include <string_view>

// QTest prints the lease's enums by their names when a comparison fails: QCOMPARE finds these by
// argument-dependent lookup, for a value, an optional one, or the elements of a QList.
namespace leader::lease {

namespace detail {
inline char *printed(std::string_view name)
{
    return qstrdup(QByteArray(name.data(), static_cast<qsizetype>(name.size())).constData());
}
} // namespace detail

inline char *toString(Outcome outcome)
{
    return detail::printed(nameOf(outcome));
}

inline char *toString(LossReason reason)
{
    return detail::printed(nameOf(reason));
}

inline char *toString(EventKind kind)
{
    return detail::printed(nameOf(kind));
}

inline char *toString(const std::optional<Outcome> &outcome)
{
    return detail::printed(outcome ? nameOf(*outcome) : "none");
}

inline char *toString(const std::optional<LossReason> &reason)
{
    return detail::printed(reason ? nameOf(*reason) : "none");
}

} // namespace leader::lease
