#pragma once

#include <QTextDocument>
#include <QVariant>

namespace leader::console {

// Asked of a model's data() for the tooltip as plain text; Qt::ToolTipRole answers it made safe.
inline constexpr int PlainToolTipRole = Qt::UserRole + 0x7e00;

// A tooltip that shows text as written. QToolTip renders as HTML any text Qt::mightBeRichText
// takes for HTML, so database text (a pause reason "<b>x</b><img src=...>", a holder id, a server
// message) could style itself or load an image; such text is escaped into a paragraph that shows
// it verbatim. Other text is already shown plain and stays as it is.
inline QVariant plainToolTip(const QVariant &tip)
{
    if (tip.typeId() != QMetaType::QString)
        return tip;
    const QString text = tip.toString();
    return Qt::mightBeRichText(text) ? Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal) : text;
}

inline QString plainToolTip(const QString &tip)
{
    return plainToolTip(QVariant(tip)).toString();
}

} // namespace leader::console
