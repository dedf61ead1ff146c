#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

class QSettings;

namespace leader::console {

// How late a role's last completed tick is, as the status table and the chart colour it.
enum class AgeLevel {
    Ok,
    Warning,
    Alert,
    Unknown, // the role never completed a tick (or no age is known)
    // Not judged: the role is paused, or not yet due since it was unpaused or first seen
    // (ageLevelOf() in models/health.h); level() never returns it.
    Neutral,
};

QString ageLevelName(AgeLevel level); // "ok", "warning", "alert", "unknown", "neutral"

struct AgeThreshold
{
    double warnSeconds = 0;
    double alertSeconds = 0;

    friend bool operator==(const AgeThreshold &, const AgeThreshold &) = default;
};

// Per role: the last_tick_age at which the console warns and alerts. Derived from each role's tick
// interval unless set explicitly; kept in QSettings group "thresholds".
class AgeThresholds final
{
public:
    AgeThresholds() = default;

    // The roles' default intervals, which the demo runs (lease::RoleTable, via core/leasefacts.h).
    static AgeThresholds defaults();
    // warn = 2 x interval + 15 s, alert = 4 x interval + 30 s (why: see the .cpp).
    static AgeThreshold forInterval(double intervalSeconds);

    QHash<QString, double> roleIntervals() const { return m_intervals; }
    // Sets the interval and re-derives that role's thresholds from it.
    void setRoleInterval(const QString &role, double intervalSeconds);
    void setRoleIntervals(const QHash<QString, double> &intervalSeconds);

    // A role not configured gets the thresholds of the longest known interval (or 60 s).
    AgeThreshold threshold(const QString &role) const;
    void setThreshold(const QString &role, AgeThreshold threshold);
    QStringList roles() const;

    AgeLevel level(const QString &role, std::optional<double> ageSeconds) const;

    // Group "thresholds": <role>/interval, <role>/warn, <role>/alert (seconds). load() keeps the
    // current values for what the settings lack or hold out of range.
    void load(QSettings &settings);
    void save(QSettings &settings) const;

    friend bool operator==(const AgeThresholds &, const AgeThresholds &) = default;

private:
    QHash<QString, double> m_intervals;
    QHash<QString, AgeThreshold> m_thresholds;
};

} // namespace leader::console
