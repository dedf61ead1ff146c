#pragma once

#include <QLocale>
#include <QString>

#include <string>

namespace leader::test {

// For as long as it lives, the process formats and parses numbers as a German user's console
// does: QCoreApplication calls setlocale(LC_ALL, "") on Unix, so there printf, strtod and
// std::stod use a decimal comma. Switches the C library to de_DE.UTF-8 and Qt's default QLocale
// to German, and restores both when destroyed. Make it before starting any thread (setlocale is
// not thread-safe) and let it outlive them.
class GermanNumbers final
{
public:
    GermanNumbers();
    ~GermanNumbers();
    GermanNumbers(const GermanNumbers &) = delete;
    GermanNumbers &operator=(const GermanNumbers &) = delete;

    // True when the locale is in force and its decimal point really is a comma.
    bool active() const { return m_whyNot.isEmpty(); }
    // Why not, for the skip or failure message.
    const QString &whyNot() const { return m_whyNot; }
    // scripts/test.sh sets LEADER_TEST_LOCALES=required: where the set-up generated the locale
    // (CI), its absence is a failure, not a skip.
    static bool required();

private:
    std::string m_previousC; // setlocale's own string for the previous setting
    QLocale m_previousQt;    // QLocale() is the default in force
    QString m_whyNot;
};

} // namespace leader::test

// Declares `name` in the calling test function; skips the test when de_DE.UTF-8 is not
// installed, or fails it when LEADER_TEST_LOCALES=required.
#define LEADER_GERMAN_NUMBERS(name)                                                                \
    const leader::test::GermanNumbers name;                                                        \
    do {                                                                                           \
        if (!name.active()) {                                                                      \
            if (leader::test::GermanNumbers::required())                                           \
                QFAIL(qPrintable(name.whyNot()));                                                  \
            QSKIP(qPrintable(name.whyNot()));                                                      \
        }                                                                                          \
    } while (false)
