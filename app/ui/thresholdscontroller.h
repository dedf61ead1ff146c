#pragma once

#include "models/agethresholds.h"

#include <QObject>

class QWidget;

namespace leader::console {

// Role > Age thresholds: each role's warn and alert ages, kept in QSettings (group "thresholds"),
// and the dialog that edits them. Everyone who colours or alerts on an age follows changed().
class ThresholdsController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ThresholdsController)

public:
    explicit ThresholdsController(QWidget *window); // loads the saved thresholds
    ~ThresholdsController() override;

    const AgeThresholds &thresholds() const { return m_thresholds; }
    // Opens the dialog (window-modal, not exec()'d); OK saves and emits changed().
    void edit();

Q_SIGNALS:
    void changed(const leader::console::AgeThresholds &thresholds);

private:
    QWidget *m_window;
    AgeThresholds m_thresholds;
};

} // namespace leader::console
