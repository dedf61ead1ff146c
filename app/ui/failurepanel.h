#pragma once

#include "core/demotypes.h"

#include <QWidget>

class QAbstractItemModel;
class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace leader::console {

// The demo's failure panel: the hosted replicas, and what can be done to the selected one. It
// only asks; the demo host acts and logs.
class FailurePanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FailurePanel)

public:
    // replicas: a ReplicaModel (column 0 holds the replica id).
    explicit FailurePanel(QAbstractItemModel *replicas, QWidget *parent = nullptr);

    QString selectedReplica() const;
    void selectReplica(const QString &id);

Q_SIGNALS:
    void faultRequested(const leader::console::FaultRequest &request);

private:
    void request(FaultKind kind);
    void updateButtons();

    QAbstractItemModel *m_replicas;
    QTableView *m_view;
    QSpinBox *m_freezeSeconds;
    QSpinBox *m_severSeconds;
    QSpinBox *m_slowMs;
    QComboBox *m_panicRole;
    QLineEdit *m_panicStep;
    QList<QPushButton *> m_actionButtons;
};

} // namespace leader::console
