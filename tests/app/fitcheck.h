#pragma once

// What of a shown dialog does not fit: its title in the title bar (ui/dialogfit's titleBarWidth
// against the dialog's width), a visible label or button cut (narrower than its text, lower than
// its wrapped lines) or outside the dialog. Empty when everything fits.

#include "ui/dialogfit.h"

#include <QAbstractButton>
#include <QDialog>
#include <QLabel>
#include <QStringList>

namespace fitcheck {

inline QString whatDoesNotFit(const QDialog &dialog)
{
    QStringList problems;
    const int title = leader::console::titleBarWidth(&dialog);
    if (title > dialog.width())
        problems << QStringLiteral("title \"%1\" needs %2 px, the dialog is %3")
                            .arg(dialog.windowTitle())
                            .arg(title)
                            .arg(dialog.width());
    const QRect inside = dialog.rect();
    const auto check = [&](const QWidget *widget, const QString &text, const QSize &needed) {
        if (!widget->isVisibleTo(&dialog) || text.isEmpty())
            return;
        const QRect where(widget->mapTo(&dialog, QPoint(0, 0)), widget->size());
        if (needed.width() > widget->width() || needed.height() > widget->height()
            || !inside.contains(where))
            problems << QStringLiteral("\"%1\" needs %2×%3, has %4×%5 at (%6, %7) in %8×%9")
                                .arg(text.left(40))
                                .arg(needed.width())
                                .arg(needed.height())
                                .arg(widget->width())
                                .arg(widget->height())
                                .arg(where.x())
                                .arg(where.y())
                                .arg(inside.width())
                                .arg(inside.height());
    };
    for (const QLabel *label : dialog.findChildren<QLabel *>()) {
        const QSize needed = label->wordWrap() ? QSize(0, label->heightForWidth(label->width()))
                                               : label->minimumSizeHint();
        check(label, label->text(), needed);
    }
    for (const QAbstractButton *button : dialog.findChildren<QAbstractButton *>())
        check(button, button->text(), button->minimumSizeHint());
    return problems.join(QLatin1String("; "));
}

} // namespace fitcheck
