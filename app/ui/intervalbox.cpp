#include "intervalbox.h"

#include <QSettings>

namespace leader::console {

namespace {

const QString IntervalKey = QStringLiteral("poll/intervalMs");
constexpr int DefaultIntervalMs = 1000;
const QList<int> IntervalChoicesMs{0, 1000, 2000, 5000, 10000, 30000};

QString intervalText(int milliseconds)
{
    return milliseconds == 0 ? QObject::tr("Off") : QObject::tr("%1 s").arg(milliseconds / 1000);
}

} // namespace

IntervalBox::IntervalBox(QWidget *parent)
    : QComboBox(parent)
{
    setObjectName(QStringLiteral("intervalBox"));
    for (const int milliseconds : IntervalChoicesMs)
        addItem(intervalText(milliseconds), milliseconds);
    setToolTip(tr("How often leader_status is read. Polling pauses while the window is "
                  "minimised."));
    const int saved = QSettings().value(IntervalKey, DefaultIntervalMs).toInt();
    setCurrentIndex(findData(IntervalChoicesMs.contains(saved) ? saved : DefaultIntervalMs));
    connect(this, &QComboBox::activated, this, [this](int index) {
        const int milliseconds = itemData(index).toInt();
        QSettings().setValue(IntervalKey, milliseconds);
        Q_EMIT intervalChosen(milliseconds);
    });
}

IntervalBox::~IntervalBox() = default;

int IntervalBox::interval() const
{
    return currentData().toInt();
}

} // namespace leader::console
