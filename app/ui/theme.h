#pragma once

#include <QPalette>
#include <QString>

namespace leader::console {

// Light and dark palettes. System follows the desktop's palette as the platform theme gives it
// (Qt 6.4 has no colour-scheme hint yet); Light and Dark force Fusion's palettes.
enum class Theme { System, Light, Dark };

Theme themeFromName(const QString &name);
QString themeName(Theme theme);
void applyTheme(Theme theme);
bool isDark(const QPalette &palette);

} // namespace leader::console
