#include "germannumbers.h"

#include <QLocale>

#include <clocale>
#include <cstring>

namespace leader::test {

namespace {

constexpr const char *German = "de_DE.UTF-8";

} // namespace

GermanNumbers::GermanNumbers()
    : m_previousC(std::setlocale(LC_ALL, nullptr))
{
    if (!std::setlocale(LC_ALL, German)) {
        m_whyNot = QStringLiteral("the locale %1 is not installed (scripts/setup-deps.sh enables "
                                  "it in /etc/locale.gen and runs locale-gen)")
                           .arg(QLatin1String(German));
        return;
    }
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    // Proves the trap is live, so a test passing here really passed under a decimal comma.
    if (std::strcmp(std::localeconv()->decimal_point, ",") != 0)
        m_whyNot = QStringLiteral("%1 is installed but its decimal point is \"%2\", not a comma")
                           .arg(QLatin1String(German),
                                QLatin1String(std::localeconv()->decimal_point));
}

GermanNumbers::~GermanNumbers()
{
    std::setlocale(LC_ALL, m_previousC.c_str());
    QLocale::setDefault(m_previousQt);
}

bool GermanNumbers::required()
{
    return qEnvironmentVariable("LEADER_TEST_LOCALES") == QLatin1String("required");
}

} // namespace leader::test
