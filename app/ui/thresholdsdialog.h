#pragma once

#include <QDialog>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace leader::console {

// Per role, the last_tick_age (seconds) at which the console warns and alerts. The main window
// converts to and from its AgeThresholds; the map's value is (warn, alert).
class ThresholdsDialog final : public QDialog
{
    Q_OBJECT

public:
    using Thresholds = QMap<QString, QPair<double, double>>;

    static QStringList roles(); // billing, dunning, webhook_outbox, email_outbox, webhook_delivery
    static constexpr double MaxSeconds = 7 * 24 * 3600.0;

    explicit ThresholdsDialog(QWidget *parent = nullptr);
    ~ThresholdsDialog() override;

    // Roles not in roles() are ignored; roles missing from the map keep their values.
    void setThresholds(const Thresholds &thresholds);
    Thresholds thresholds() const; // every role of roles()
    void setDefaults(const Thresholds &defaults);
    Thresholds defaults() const { return m_defaults; }
    void restoreDefaults();

    bool isValid() const;              // alert > warn for every role
    QString validationMessage() const; // the first role that is not, in one line

    // Spin boxes are named "<role>.warn" and "<role>.alert".
    QDoubleSpinBox *warnSpin(const QString &role) const;
    QDoubleSpinBox *alertSpin(const QString &role) const;

    void accept() override; // ignored while invalid

private:
    void validate();

    Thresholds m_defaults;
    QTableWidget *m_table = nullptr;
    QLabel *m_hintLabel = nullptr;
    QPushButton *m_okButton = nullptr;
    QPushButton *m_restoreButton = nullptr;
};

} // namespace leader::console
