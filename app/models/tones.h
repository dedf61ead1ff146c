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

// The colour of the index-th role (or holder), cycling: Okabe–Ito's seven hues, which stay apart
// under deuteranopia and protanopia. Per theme: on a light Base the pale members are deepened
// (yellow becomes olive) so that each keeps 3:1 against Base and AlternateBase.
int roleColorCount();
QColor roleColor(int index, const QPalette &palette);

// Pause, unpause and takeover marks on the age chart carry no hue, so that none can be read as a
// role's colour: Text-coloured (a hollow Base-coloured unpause) with a Text outline; their shapes
// tell them apart.
enum class Mark { Pause, Unpause, Takeover };
QColor markFill(Mark mark, const QPalette &palette);
QColor markOutline(const QPalette &palette);

// The holder timeline's takeover highlight: a Text-coloured frame on Base, again without a hue, so
// no holder's colour matches it.
QColor highlightFill(const QPalette &palette);
QColor highlightOutline(const QPalette &palette);

} // namespace leader::console
