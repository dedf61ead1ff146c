#pragma once

#include "core/historystore.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace leader::console {

// Edit > Preferences…: whether the status history is kept on disk per database, for how long
// and up to what size (HistorySettings).
class PreferencesDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit PreferencesDialog(QWidget *parent = nullptr);
    ~PreferencesDialog() override;

    void setHistorySettings(const HistorySettings &settings);
    HistorySettings historySettings() const;

    // Named "keepHistory", "retentionDays" and "maxMegabytes".
    QCheckBox *keepBox() const { return m_keepBox; }
    QSpinBox *retentionSpin() const { return m_retentionSpin; }
    QSpinBox *sizeSpin() const { return m_sizeSpin; }

private:
    void updateEnabled();

    QCheckBox *m_keepBox = nullptr;
    QSpinBox *m_retentionSpin = nullptr;
    QSpinBox *m_sizeSpin = nullptr;
    QLabel *m_whereLabel = nullptr;
};

} // namespace leader::console
