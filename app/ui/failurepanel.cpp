#include "failurepanel.h"

#include "core/leasefacts.h"
#include "models/replicamodel.h"
#include "tableview.h"

#include <QAbstractItemModel>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

namespace {

QSpinBox *spinBox(const QString &objectName, int minimum, int maximum, int value,
                  const QString &suffix)
{
    auto *box = new QSpinBox;
    box->setObjectName(objectName);
    box->setRange(minimum, maximum);
    box->setValue(value);
    box->setSuffix(suffix);
    return box;
}

} // namespace

FailurePanel::FailurePanel(QAbstractItemModel *replicas, QWidget *parent)
    : QWidget(parent)
    , m_replicas(replicas)
    , m_view(makeTableView(QStringLiteral("replicaView"), replicas))
    , m_freezeSeconds(spinBox(QStringLiteral("freezeSeconds"), 1, 300, 20, QStringLiteral(" s")))
    , m_severSeconds(spinBox(QStringLiteral("severSeconds"), 1, 300, 20, QStringLiteral(" s")))
    , m_slowMs(spinBox(QStringLiteral("slowMs"), 10, 5000, 500, QStringLiteral(" ms")))
    , m_panicRole(new QComboBox)
    , m_panicStep(new QLineEdit)
{
    // Three replicas in view at a laptop's size, every column without scrolling: the widths fixed
    // from the font, as a holder id changes at each restart and the faults' text counts down; a
    // longer value is elided (the holder's whole id in its tooltip).
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    const QString widestRoles = QStringLiteral("billing, dunning");
    fixColumnWidths(m_view, {{ReplicaModel::Replica, QStringLiteral("r3")},
                             {ReplicaModel::State, QStringLiteral("starting")},
                             {ReplicaModel::Holder, QStringLiteral("vm:20765:0b75130b"), false},
                             {ReplicaModel::Leading, widestRoles, false}});
    m_view->setFixedHeight(heightForRows(m_view, 3));

    m_panicRole->setObjectName(QStringLiteral("panicRole"));
    m_panicRole->addItems(leaseRoles());
    m_panicStep->setObjectName(QStringLiteral("panicStep"));
    m_panicStep->setPlaceholderText(QStringLiteral("step (empty: the first)"));

    // The actions without an argument in one row, the others two a row: the list and the
    // takeovers below keep the dock's height.
    auto *plain = new QHBoxLayout;
    auto *grid = new QGridLayout;
    auto addAction
            = [this, plain, grid](int row, int column, const QString &name, const QString &text,
                                  const QString &tip, FaultKind kind, QWidget *argument) {
                  auto *button = new QPushButton(text);
                  button->setObjectName(name);
                  button->setToolTip(tip);
                  connect(button, &QPushButton::clicked, this, [this, kind] { request(kind); });
                  if (row < 0) {
                      plain->addWidget(button);
                  } else {
                      grid->addWidget(button, row, column);
                      grid->addWidget(argument, row, column + 1);
                  }
                  m_actionButtons.append(button);
              };
    addAction(-1, 0, QStringLiteral("killButton"), tr("Kill"),
              tr("A process death: nothing more reaches the database and nothing is released. "
                 "Its roles are taken over once their leases expire (≤ 10 s after the last "
                 "heartbeat)."),
              FaultKind::Kill, nullptr);
    addAction(-1, 1, QStringLiteral("stopButton"), tr("Stop"),
              tr("A clean stop (SIGTERM): running ticks are released at once, as interrupted."),
              FaultKind::Stop, nullptr);
    addAction(-1, 2, QStringLiteral("restartButton"), tr("Restart"),
              tr("Start a stopped or killed replica again, with a new holder id."),
              FaultKind::Restart, nullptr);
    addAction(-1, 3, QStringLiteral("healButton"), tr("Heal"),
              tr("End a freeze, a cut and a slow link now."), FaultKind::Heal, nullptr);
    addAction(0, 0, QStringLiteral("freezeButton"), tr("Freeze"),
              tr("SIGSTOP or a long GC pause: every statement waits, then goes out stale. The "
                 "fence must refuse what it claims."),
              FaultKind::Freeze, m_freezeSeconds);
    addAction(0, 2, QStringLiteral("severButton"), tr("Sever"),
              tr("Blackhole the replica's link to the database both ways (no FIN, no RST)."),
              FaultKind::Sever, m_severSeconds);
    addAction(1, 0, QStringLiteral("slowButton"), tr("Slow link"),
              tr("Add this much latency each way until healed."), FaultKind::Slow, m_slowMs);
    addAction(1, 2, QStringLiteral("panicButton"), tr("Panic"),
              tr("The named step of the role's next tick on this replica throws: the tick is "
                 "released as failed and waits one interval (ADR-114, 2026-10-19)."),
              FaultKind::Panic, m_panicRole);
    grid->addWidget(m_panicStep, 2, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    auto *hint = new QLabel(tr("Select a replica, then break it:"));
    hint->setToolTip(tr("Takeovers are measured in the Failovers table below."));
    layout->addWidget(hint);
    plain->addStretch();
    layout->addLayout(plain);
    layout->addLayout(grid);

    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &FailurePanel::updateButtons);
    connect(m_replicas, &QAbstractItemModel::modelReset, this, &FailurePanel::updateButtons);
    connect(m_replicas, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_view->selectionModel()->hasSelection() && m_replicas->rowCount() > 0)
            m_view->selectRow(0);
    });
    if (m_replicas->rowCount() > 0)
        m_view->selectRow(0);
    updateButtons();
}

QString FailurePanel::selectedReplica() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows(0);
    return rows.isEmpty() ? QString() : rows.constFirst().data(Qt::DisplayRole).toString();
}

void FailurePanel::selectReplica(const QString &id)
{
    for (int row = 0; row < m_replicas->rowCount(); ++row) {
        if (m_replicas->index(row, 0).data(Qt::DisplayRole).toString() == id) {
            m_view->selectRow(row);
            return;
        }
    }
}

void FailurePanel::request(FaultKind kind)
{
    const QString replica = selectedReplica();
    if (replica.isEmpty())
        return;
    FaultRequest request;
    request.replica = replica;
    request.kind = kind;
    if (kind == FaultKind::Freeze)
        request.durationMs = m_freezeSeconds->value() * 1000;
    else if (kind == FaultKind::Sever)
        request.durationMs = m_severSeconds->value() * 1000;
    else if (kind == FaultKind::Slow)
        request.durationMs = m_slowMs->value();
    else if (kind == FaultKind::Panic) {
        request.role = m_panicRole->currentText();
        request.step = m_panicStep->text().trimmed();
    }
    Q_EMIT faultRequested(request);
}

void FailurePanel::updateButtons()
{
    const bool selected = !selectedReplica().isEmpty();
    for (QPushButton *button : std::as_const(m_actionButtons))
        button->setEnabled(selected);
}

} // namespace leader::console
