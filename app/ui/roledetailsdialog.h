#pragma once

#include <QDialog>
#include <QString>

class QFormLayout;
class QLabel;

namespace leader::console {

class StatusModel;
struct RoleStatus;

// What one role's last tick did (migration 0184), beside its lease: the outcome and, when lost,
// why; how long it ran, when it ended and on which replica; the step that failed and its error
// (first line, secrets masked by the database); the last hour's ticks by outcome; and how much
// work waits for it (migration 0186's registered source: what, how many, the oldest's age, or the
// source's error); beside replicas that speak only the ADR (0189), whether its holder is outside
// the registry and that the hour's counts are ours only. Opened from
// the status table (double-click, or Tick details… on a row); it follows the model's polls until
// closed, and says so when the role leaves the rows or the database records no ticks.
class RoleDetailsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RoleDetailsDialog)

public:
    RoleDetailsDialog(StatusModel *model, const QString &role, QWidget *parent = nullptr);
    ~RoleDetailsDialog() override;

    const QString &role() const { return m_role; }

private:
    void refresh();
    void showBacklog(const RoleStatus &status);
    QLabel *addField(const QString &name, const QString &label);

    StatusModel *m_model;
    const QString m_role;
    QLabel *m_state = nullptr;
    QLabel *m_leaseHolder = nullptr; // marked when outside the registry (extension 0189)
    QLabel *m_outcome = nullptr;
    QLabel *m_took = nullptr;
    QLabel *m_ended = nullptr;
    QLabel *m_holder = nullptr;
    QLabel *m_step = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_hour = nullptr;
    QLabel *m_backlog = nullptr;
    QLabel *m_oldest = nullptr;
    QLabel *m_backlogError = nullptr;
    QLabel *m_note = nullptr;
    QFormLayout *m_form = nullptr;
};

} // namespace leader::console
