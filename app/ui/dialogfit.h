#pragma once

class QDialog;
class QLabel;
class QWidget;

namespace leader::console {

// What a window's title needs of its width in a title bar: the title in the bold font most window
// managers use, centred between the bar's icon and its three buttons. The window manager's own
// font is unknown to Qt; the application's, in bold, is the stand-in.
int titleBarWidth(const QWidget *window);

// A dialog whose title is not cut and whose hints are not clipped: at least titleBarWidth() wide,
// and, while it is shown, as tall as its wrapped lines need whenever a hint appears or grows (a
// top-level window does not follow its layout's height-for-width by itself). Call after the
// dialog's layout and title are set.
void fitToContents(QDialog *dialog);

// An error or hint line in the alert tone of the palette in use, legible on the light and the dark
// theme alike (a fixed red is 2.7:1 on the dark one).
void setAlertText(QLabel *label);

} // namespace leader::console
