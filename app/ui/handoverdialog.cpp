#include "handoverdialog.h"

#include "core/leasefacts.h"
#include "models/statusmodel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace leader::console {

HandoverDialog::HandoverDialog(const QString &role, const QString &holder,
                               const QStringList &candidates, const QString &target,
                               const HandoverOutside &outside, QWidget *parent)
    : QDialog(parent)
    , m_role(role)
    , m_targetCombo(new QComboBox)
    , m_whoEdit(new QLineEdit(defaultWho()))
    , m_whyEdit(new QLineEdit)
    , m_typeLabel(new QLabel)
    , m_typedEdit(new QLineEdit)
    , m_confirmButton(new QPushButton(tr("Hand %1 over").arg(role)))
{
    setObjectName(QStringLiteral("handoverDialog"));
    setWindowTitle(tr("Hand role over"));
    const QString where = target.isEmpty() ? QString() : tr(" on %1").arg(target);
    auto *summary = new QLabel(
            outside.holderOutside
                    ? tr("Hand %1 over now%2: %3. The replica chosen below takes the next tick; "
                         "if it does not come within 10 s, any replica may take it.")
                              .arg(role, where,
                                   outsideHolderClause(holder, outside.heldForSeconds,
                                                       outside.lastTickSeconds))
                    : tr("Hand %1 over now%2: its holder %3 runs no further step of its tick (the "
                         "step in flight completes) and releases it, and the replica chosen below "
                         "takes the next tick. If that replica does not come within 10 s, any "
                         "replica may take it.")
                              .arg(role, where, holder));
    summary->setObjectName(QStringLiteral("handoverSummary"));
    summary->setTextFormat(Qt::PlainText); // names are the operator's text
    summary->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(summary);
    if (outside.seen) {
        auto *note = new QLabel(tr("Holders outside the replica registry led %1 in the last hour: "
                                   "they ignore the preference, and one of them may take the next "
                                   "tick first.")
                                        .arg(role));
        note->setObjectName(QStringLiteral("outsideNote"));
        note->setTextFormat(Qt::PlainText);
        note->setWordWrap(true);
        layout->addWidget(note);
    }

    m_targetCombo->setObjectName(QStringLiteral("targetCombo"));
    m_targetCombo->addItem(tr("Any replica but %1").arg(holder), QString());
    for (const QString &name : candidates)
        m_targetCombo->addItem(name, name);
    auto *form = new QFormLayout;
    m_whoEdit->setObjectName(QStringLiteral("whoEdit"));
    m_whoEdit->setMaxLength(MaxWhoLength);
    m_whyEdit->setObjectName(QStringLiteral("whyEdit"));
    m_whyEdit->setMaxLength(MaxWhyLength);
    m_whyEdit->setPlaceholderText(tr("required, e.g. r1 is slow"));
    form->addRow(tr("&To:"), m_targetCombo);
    form->addRow(tr("&Who:"), m_whoEdit);
    form->addRow(tr("W&hy:"), m_whyEdit);
    layout->addLayout(form);
    m_typeLabel->setObjectName(QStringLiteral("typeLabel"));
    m_typeLabel->setText(tr("Production: type %1 to confirm").arg(role));
    m_typeLabel->setTextFormat(Qt::PlainText);
    m_typeLabel->setBuddy(m_typedEdit);
    m_typedEdit->setObjectName(QStringLiteral("typedNameEdit"));
    layout->addWidget(m_typeLabel);
    layout->addWidget(m_typedEdit);
    auto *buttons = new QDialogButtonBox;
    m_confirmButton->setObjectName(QStringLiteral("confirmButton"));
    buttons->addButton(m_confirmButton, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (canConfirm())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QLineEdit *edit : {m_whoEdit, m_whyEdit, m_typedEdit})
        connect(edit, &QLineEdit::textChanged, this, &HandoverDialog::validate);
    setTypedConfirmation(false);
}

HandoverDialog::~HandoverDialog() = default;

QString HandoverDialog::toReplica() const
{
    return m_targetCombo->currentData().toString();
}

QString HandoverDialog::who() const
{
    return m_whoEdit->text().trimmed();
}

QString HandoverDialog::why() const
{
    return m_whyEdit->text().trimmed();
}

void HandoverDialog::setTypedConfirmation(bool required)
{
    m_typed = required;
    m_typeLabel->setVisible(required);
    m_typedEdit->setVisible(required);
    validate();
}

bool HandoverDialog::canConfirm() const
{
    if (who().isEmpty() || why().isEmpty())
        return false;
    return !m_typed || m_typedEdit->text().trimmed() == m_role;
}

QString HandoverDialog::outsideHolderClause(const QString &holder, double heldForSeconds,
                                            std::optional<double> lastTickSeconds)
{
    // Its work ends when it does: the only estimate is its previous tick's length.
    const QString when
            = lastTickSeconds ? tr(", about %1 from now (its last tick lasted %2)")
                                        .arg(StatusModel::formatSeconds(
                                                     qMax(0.0, *lastTickSeconds - heldForSeconds)),
                                             StatusModel::formatSeconds(*lastTickSeconds))
                              : QString();
    return tr("%1 is outside the replica registry and does not take hand-over requests: its tick "
              "ends when its work does%2, or at its lease's expiry if it stops renewing")
            .arg(holder, when);
}

void HandoverDialog::validate()
{
    m_confirmButton->setEnabled(canConfirm());
}

} // namespace leader::console
