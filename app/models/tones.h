#pragma once

#include "core/statustypes.h"
#include "models/agethresholds.h"

#include <QColor>
#include <QPalette>

namespace leader::console {

// What a colour means, not which colour it is: the colour is derived from the palette in use, so
// a state or an alert stays legible on the light theme, the dark theme and a desktop's own.
enum class Tone { Good, Info, Warning, Alert, Neutral };

// WCAG 2 contrast ratio of two opaque colours, 1 to 21.
double contrastRatio(const QColor &a, const QColor &b);

// Text, swatches and marks of the tone drawn on palette's Base: contrast at least 4.5.
QColor toneText(Tone tone, const QPalette &palette);
// A cell background of the tone, on which palette's Text keeps a contrast of at least 4.5.
QColor toneFill(Tone tone, const QPalette &palette);

Tone stateTone(RoleState state);

} // namespace leader::console
