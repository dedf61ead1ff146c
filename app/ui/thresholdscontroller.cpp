#include "thresholdscontroller.h"

#include "thresholdsdialog.h"

#include <QSettings>
#include <QWidget>

namespace leader::console {

namespace {

ThresholdsDialog::Thresholds toDialog(const AgeThresholds &thresholds)
{
    ThresholdsDialog::Thresholds map;
    for (const QString &role : ThresholdsDialog::roles()) {
        const AgeThreshold threshold = thresholds.threshold(role);
        map.insert(role, {threshold.warnSeconds, threshold.alertSeconds});
    }
    return map;
}

} // namespace

ThresholdsController::ThresholdsController(QWidget *window)
    : QObject(window)
    , m_window(window)
    , m_thresholds(AgeThresholds::defaults())
{
    QSettings settings;
    m_thresholds.load(settings);
}

ThresholdsController::~ThresholdsController() = default;

void ThresholdsController::edit()
{
    auto *dialog = new ThresholdsDialog(m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setDefaults(toDialog(AgeThresholds::defaults()));
    dialog->setThresholds(toDialog(m_thresholds));
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const ThresholdsDialog::Thresholds chosen = dialog->thresholds();
        for (auto it = chosen.cbegin(); it != chosen.cend(); ++it)
            m_thresholds.setThreshold(it.key(), AgeThreshold{it.value().first, it.value().second});
        QSettings settings;
        m_thresholds.save(settings);
        Q_EMIT changed(m_thresholds);
    });
    dialog->open();
}

} // namespace leader::console
