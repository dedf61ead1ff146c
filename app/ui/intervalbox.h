#pragma once

#include <QComboBox>

namespace leader::console {

// How often leader_status is read: Off, 1, 2, 5, 10 or 30 s, kept in QSettings poll/intervalMs
// (1 s when absent or not one of the choices).
class IntervalBox final : public QComboBox
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IntervalBox)

public:
    explicit IntervalBox(QWidget *parent = nullptr); // selects the saved choice
    ~IntervalBox() override;

    int interval() const; // milliseconds; 0 is Off

Q_SIGNALS:
    // The operator chose; already saved.
    void intervalChosen(int milliseconds);
};

} // namespace leader::console
