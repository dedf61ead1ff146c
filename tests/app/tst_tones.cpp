// The console's colours for a colour-blind operator: on the light and the dark theme, every two
// role colours, a role colour and a chart mark, a holder colour and the timeline's takeover
// highlight stay apart in simulated deuteranopia and protanopia (Machado et al. 2009, severity 1,
// in linear RGB; CIELAB distance at least MinDistance), and each keeps its contrast against the
// theme's background.
//
// Checked once against the palettes this replaced: the role colours (the age chart's tab10) fail
// rolesStayApart (blue and purple 5.7 apart under protanopia) and rolesContrast (orange 2.5:1 on
// white); the marks (the warning, good and alert tones) fail marksDifferFromRoles; the highlight
// (the alert fill among Tableau holder colours) fails highlightDiffersFromHolders (1.1 from the
// pink holder under deuteranopia).

#include "models/tones.h"
#include "ui/holdertimelineview.h"
#include "ui/theme.h"

#include <QApplication>
#include <QTest>

#include <array>
#include <cmath>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::Theme)

namespace {

constexpr double MinDistance = 12.0;    // CIELAB ΔE (CIE76): plainly different at a glance
constexpr double GraphicContrast = 3.0; // WCAG 2.1 1.4.11, non-text contrast
constexpr double TextContrast = 4.5;

enum class Vision { Normal, Deuteranopia, Protanopia };

using Matrix = std::array<std::array<double, 3>, 3>;

constexpr Matrix DeuteranopiaMatrix{{{0.367322, 0.860646, -0.227968},
                                     {0.280085, 0.672501, 0.047413},
                                     {-0.011820, 0.042940, 0.968881}}};
constexpr Matrix ProtanopiaMatrix{{{0.152286, 1.052583, -0.204868},
                                   {0.114503, 0.786281, 0.099216},
                                   {-0.003882, -0.048116, 1.051998}}};

double toLinear(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

std::array<double, 3> linearRgb(const QColor &color, Vision vision)
{
    const std::array<double, 3> rgb{toLinear(color.redF()), toLinear(color.greenF()),
                                    toLinear(color.blueF())};
    if (vision == Vision::Normal)
        return rgb;
    const Matrix &m = vision == Vision::Deuteranopia ? DeuteranopiaMatrix : ProtanopiaMatrix;
    std::array<double, 3> out{};
    for (int i = 0; i < 3; ++i)
        out[i] = std::clamp(m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2], 0.0, 1.0);
    return out;
}

std::array<double, 3> lab(const std::array<double, 3> &rgb)
{
    const double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047;
    const double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    const double z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
    const auto f = [](double t) {
        return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
    };
    return {116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))};
}

double distance(const QColor &a, const QColor &b, Vision vision)
{
    const auto la = lab(linearRgb(a, vision));
    const auto lb = lab(linearRgb(b, vision));
    return std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
}

QList<QColor> roleColors(const QPalette &palette)
{
    QList<QColor> colors;
    for (int i = 0; i < roleColorCount(); ++i)
        colors.append(roleColor(i, palette));
    return colors;
}

QString describe(const QColor &a, const QColor &b, double value)
{
    return QStringLiteral("%1 and %2: %3").arg(a.name(), b.name()).arg(value, 0, 'f', 1);
}

} // namespace

class TonesTest final : public QObject
{
    Q_OBJECT

private:
    static void addThemes()
    {
        QTest::addColumn<Theme>("theme");
        QTest::newRow("light") << Theme::Light;
        QTest::newRow("dark") << Theme::Dark;
    }

    static void addThemesAndVisions()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<Vision>("vision");
        for (const Theme theme : {Theme::Light, Theme::Dark}) {
            for (const auto &[vision, name] : {std::pair{Vision::Normal, "normal"},
                                               std::pair{Vision::Deuteranopia, "deuteranopia"},
                                               std::pair{Vision::Protanopia, "protanopia"}}) {
                QTest::addRow("%s %s", qPrintable(themeName(theme)), name) << theme << vision;
            }
        }
    }

    static QPalette themed(Theme theme)
    {
        applyTheme(theme);
        const QPalette palette = QGuiApplication::palette();
        applyTheme(Theme::System);
        return palette;
    }

private Q_SLOTS:
    void rolesStayApart_data() { addThemesAndVisions(); }
    void rolesStayApart()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        const QList<QColor> colors = roleColors(themed(theme));
        QVERIFY(colors.size() >= 5); // the five roles each get their own
        for (int i = 0; i < colors.size(); ++i) {
            for (int j = i + 1; j < colors.size(); ++j) {
                const double d = distance(colors[i], colors[j], vision);
                QVERIFY2(d >= MinDistance, qPrintable(describe(colors[i], colors[j], d)));
            }
        }
    }

    void rolesContrast_data() { addThemes(); }
    void rolesContrast()
    {
        QFETCH(Theme, theme);
        const QPalette palette = themed(theme);
        // The chart draws on Base, the timeline's lanes are AlternateBase.
        for (const QPalette::ColorRole background : {QPalette::Base, QPalette::AlternateBase}) {
            const QColor back = palette.color(background);
            for (const QColor &color : roleColors(palette)) {
                const double ratio = contrastRatio(color, back);
                QVERIFY2(ratio >= GraphicContrast, qPrintable(describe(color, back, ratio)));
            }
        }
    }

    void rolesCycle()
    {
        const QPalette palette = themed(Theme::Light);
        QCOMPARE(roleColor(roleColorCount(), palette), roleColor(0, palette));
        QCOMPARE(roleColor(-1, palette), roleColor(roleColorCount() - 1, palette));
    }

    void marksDifferFromRoles_data() { addThemesAndVisions(); }
    void marksDifferFromRoles()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        const QPalette palette = themed(theme);
        QList<QColor> marks{markOutline(palette)};
        for (const Mark mark : {Mark::Pause, Mark::Unpause, Mark::Takeover})
            marks.append(markFill(mark, palette));
        for (const QColor &mark : std::as_const(marks)) {
            for (const QColor &role : roleColors(palette)) {
                const double d = distance(mark, role, vision);
                QVERIFY2(d >= MinDistance, qPrintable(describe(mark, role, d)));
            }
        }
        // Every mark is seen against the chart: by its outline where its fill is the background.
        const QColor base = palette.color(QPalette::Base);
        QVERIFY(contrastRatio(markOutline(palette), base) >= GraphicContrast);
    }

    void highlightDiffersFromHolders_data() { addThemesAndVisions(); }
    void highlightDiffersFromHolders()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        const QPalette palette = themed(theme);
        // Enough holder ids to meet every colour a holder can get.
        QList<QColor> holders;
        for (int i = 0; i < 500; ++i) {
            const QColor color = HolderTimelineView::holderColor(
                    QStringLiteral("host-%1:%2:%3").arg(i % 7).arg(1000 + i).arg(i * 7919, 8, 16),
                    palette);
            if (!holders.contains(color))
                holders.append(color);
        }
        for (const QColor &highlight : {highlightFill(palette), highlightOutline(palette)}) {
            for (const QColor &holder : std::as_const(holders)) {
                const double d = distance(highlight, holder, vision);
                QVERIFY2(d >= MinDistance, qPrintable(describe(highlight, holder, d)));
            }
        }
        // The gap's length is written in the frame's colour on the fill; the frame is seen
        // against the lane.
        QVERIFY(contrastRatio(highlightOutline(palette), highlightFill(palette)) >= TextContrast);
        QVERIFY(contrastRatio(highlightOutline(palette), palette.color(QPalette::AlternateBase))
                >= GraphicContrast);
    }

    // The age cells: their text stays legible on the warn and alert fills, and the two fills
    // differ for a colour-blind reader too (the cell shows the age, not the word).
    void ageColours_data() { addThemesAndVisions(); }
    void ageColours()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        const QPalette palette = themed(theme);
        const QColor warn = toneFill(Tone::Warning, palette);
        const QColor alert = toneFill(Tone::Alert, palette);
        const QColor text = palette.color(QPalette::Text);
        QVERIFY(contrastRatio(warn, text) >= TextContrast);
        QVERIFY(contrastRatio(alert, text) >= TextContrast);
        const double d = distance(warn, alert, vision);
        QVERIFY2(d >= MinDistance, qPrintable(describe(warn, alert, d)));
        const QColor base = palette.color(QPalette::Base);
        for (const Tone tone : {Tone::Warning, Tone::Alert})
            QVERIFY(contrastRatio(toneText(tone, palette), base) >= TextContrast);
    }
};

QTEST_MAIN(TonesTest)

#include "tst_tones.moc"
