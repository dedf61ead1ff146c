#include "tones.h"

#include <array>
#include <cmath>

namespace leader::console {

namespace {

constexpr double TextContrast = 4.5; // WCAG AA for normal text
constexpr double Step = 0.02;

double channel(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double luminance(const QColor &color)
{
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF())
           + 0.0722 * channel(color.blueF());
}

// Hue and saturation of each tone; lightness is what the palette decides.
QColor seed(Tone tone)
{
    switch (tone) {
    case Tone::Good:
        return QColor(0x2e, 0x9d, 0x3a);
    case Tone::Info:
        return QColor(0x1e, 0x88, 0xe5);
    case Tone::Warning:
        return QColor(0xf5, 0x8f, 0x00);
    case Tone::Alert:
        return QColor(0xe5, 0x39, 0x35);
    case Tone::Neutral:
        break;
    }
    return QColor(0x80, 0x80, 0x80);
}

QColor withLightness(const QColor &color, double lightness)
{
    return QColor::fromHslF(std::max(0.0f, color.hslHueF()), color.hslSaturationF(),
                            float(std::clamp(lightness, 0.0, 1.0)));
}

// From start, step lightness towards the far end of the scale until the colour contrasts with
// against by at least TextContrast; the far end (black or white) if nothing nearer does.
QColor legibleAgainst(const QColor &seedColor, double start, bool darker, const QColor &against)
{
    for (double l = start; l >= 0.0 && l <= 1.0; l += darker ? -Step : Step) {
        const QColor candidate = withLightness(seedColor, l);
        if (contrastRatio(candidate, against) >= TextContrast)
            return candidate;
    }
    return withLightness(seedColor, darker ? 0.0 : 1.0);
}

bool isDarkColor(const QColor &color)
{
    return luminance(color) < 0.18; // below it white text contrasts more than black
}

// Okabe–Ito (orange, sky blue, bluish green, blue, vermillion, reddish purple, yellow), yellow
// last as the weakest. On a light Base the originals of orange, sky blue, vermillion and yellow
// fall below 3:1; their variants are the nearest darker ones that keep 3:1 and, simulated for
// deuteranopia and protanopia, a CIELAB distance of at least 12 from each other and from black
// and white (tst_tones checks both).
constexpr std::array<QRgb, 7> LightRoleColors{0xbd8300, 0x1d96db, 0x009e73, 0x0072b2,
                                              0xb65000, 0xc972a2, 0x474206};
constexpr std::array<QRgb, 7> DarkRoleColors{0xe69f00, 0x56b4e9, 0x009e73, 0x007cc1,
                                             0xd55e00, 0xcc79a7, 0xf0e442};

} // namespace

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor toneText(Tone tone, const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    const bool dark = isDarkColor(base);
    return legibleAgainst(seed(tone), dark ? 0.55 : 0.45, !dark, base);
}

QColor toneFill(Tone tone, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::Text);
    // Light text (a dark theme) wants a deep fill, dark text a pale one.
    const bool lightText = !isDarkColor(text);
    return legibleAgainst(seed(tone), lightText ? 0.32 : 0.80, lightText, text);
}

Tone stateTone(RoleState state)
{
    switch (state) {
    case RoleState::Led:
        return Tone::Good;
    case RoleState::Paused:
        return Tone::Warning;
    case RoleState::Cooling:
        return Tone::Info;
    case RoleState::Free:
    case RoleState::NeverRan:
    case RoleState::Unknown:
        break;
    }
    return Tone::Neutral;
}

int roleColorCount()
{
    return int(LightRoleColors.size());
}

QColor roleColor(int index, const QPalette &palette)
{
    const auto &colors
            = isDarkColor(palette.color(QPalette::Base)) ? DarkRoleColors : LightRoleColors;
    const int count = roleColorCount();
    return QColor::fromRgb(colors[std::size_t(((index % count) + count) % count)]);
}

QColor markFill(Mark mark, const QPalette &palette)
{
    return palette.color(mark == Mark::Unpause ? QPalette::Base : QPalette::Text);
}

QColor markOutline(const QPalette &palette)
{
    return palette.color(QPalette::Text);
}

QColor highlightFill(const QPalette &palette)
{
    return palette.color(QPalette::Base);
}

QColor highlightOutline(const QPalette &palette)
{
    return palette.color(QPalette::Text);
}

} // namespace leader::console
