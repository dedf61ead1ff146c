#include "theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

#include <array>
#include <utility>

namespace leader::console {

namespace {

// The settings' names: what is stored and what it is read back from.
constexpr std::array<std::pair<Theme, QLatin1StringView>, 3> ThemeNames{{
        {Theme::System, QLatin1StringView("system")},
        {Theme::Light, QLatin1StringView("light")},
        {Theme::Dark, QLatin1StringView("dark")},
}};

QPalette darkPalette()
{
    QPalette palette;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xdf, 0xe1, 0xe5);
    const QColor disabled(0x80, 0x80, 0x80);
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, window);
    palette.setColor(QPalette::ToolTipBase, base);
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, window);
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, Qt::red);
    palette.setColor(QPalette::Link, QColor(0x58, 0xa6, 0xff));
    palette.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::PlaceholderText, disabled);
    palette.setColor(QPalette::Disabled, QPalette::Text, disabled);
    palette.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
    palette.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
    return palette;
}

QPalette &systemPalette()
{
    // The palette the platform gave before any forced theme, kept to go back to it.
    static QPalette palette = QApplication::palette();
    return palette;
}

} // namespace

Theme themeFromName(const QString &name)
{
    for (const auto &[theme, known] : ThemeNames) {
        if (name == known)
            return theme;
    }
    return Theme::System;
}

QString themeName(Theme theme)
{
    for (const auto &[known, name] : ThemeNames) {
        if (known == theme)
            return name;
    }
    Q_UNREACHABLE();
}

void applyTheme(Theme theme)
{
    const QPalette system = systemPalette();
    switch (theme) {
    case Theme::System:
        QApplication::setPalette(system);
        return;
    case Theme::Light:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    case Theme::Dark:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        return;
    }
}

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

} // namespace leader::console
