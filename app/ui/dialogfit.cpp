#include "ui/dialogfit.h"

#include "models/tones.h"

#include <QDialog>
#include <QEvent>
#include <QFontMetrics>
#include <QLabel>
#include <QLayout>
#include <QPointer>
#include <QTimer>

#include <algorithm>

namespace leader::console {

namespace {

// Grows the dialog after each layout pass that leaves its wrapped lines more height than it has.
class ContentsFitter final : public QObject
{
public:
    explicit ContentsFitter(QDialog *dialog)
        : QObject(dialog)
        , m_dialog(dialog)
    {
        dialog->installEventFilter(this);
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_dialog
            && (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Show)) {
            // After the layout has taken the request: queued behind it.
            QTimer::singleShot(0, this, [this] { grow(); });
        }
        return false;
    }

private:
    void grow()
    {
        if (!m_dialog || !m_dialog->isVisible())
            return;
        const int needed = m_dialog->hasHeightForWidth()
                                   ? m_dialog->heightForWidth(m_dialog->width())
                                   : m_dialog->sizeHint().height();
        if (needed > m_dialog->height())
            m_dialog->resize(m_dialog->width(), needed);
    }

    QPointer<QDialog> m_dialog;
};

} // namespace

int titleBarWidth(const QWidget *window)
{
    QFont font = window->font();
    font.setBold(true);
    const QFontMetrics metrics(font);
    // Many title bars centre the title: the icon and three buttons, each about two lines square,
    // are kept free on both sides.
    const int side = 3 * 2 * metrics.height() + 2 * metrics.averageCharWidth();
    return metrics.horizontalAdvance(window->windowTitle()) + 2 * side;
}

void fitToContents(QDialog *dialog)
{
    const int width = std::max(titleBarWidth(dialog), dialog->minimumSizeHint().width());
    dialog->setMinimumWidth(std::max(dialog->minimumWidth(), width));
    new ContentsFitter(dialog);
}

void setAlertText(QLabel *label)
{
    QPalette palette = label->palette();
    // A label is drawn on Window, which toneText knows as Base.
    QPalette ground = palette;
    ground.setColor(QPalette::Base, palette.color(QPalette::Window));
    palette.setColor(QPalette::WindowText, toneText(Tone::Alert, ground));
    label->setPalette(palette);
}

} // namespace leader::console
