#include "draindialog.h"

#include "core/leasefacts.h"
#include "models/statusmodel.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QPushButton>
#include <QSet>
#include <QVBoxLayout>

namespace leader::console {

namespace {

QLabel *wrappedLabel(const QString &name, const QString &text)
{
    auto *label = new QLabel(text);
    label->setObjectName(name);
    label->setTextFormat(Qt::PlainText); // a replica's name is the operator's text
    label->setWordWrap(true);
    return label;
}

// A role that a holder outside the registry ran in the last hour runs there whatever the drain:
// it is nobody's last eligible replica's.
QStringList runNowhere(const QStringList &orphans, const OutsideHolders &outside)
{
    QSet<QString> outsideRoles;
    for (const OutsideHolder &holder : outside.holders)
        outsideRoles.insert(holder.role);
    QStringList roles;
    for (const QString &role : orphans) {
        if (!outsideRoles.contains(role))
            roles.append(role);
    }
    return roles;
}

} // namespace

DrainDialog::DrainDialog(Mode mode, const QString &replica, const QStringList &orphans,
                         const QString &target, const OutsideHolders &outside, QWidget *parent)
    : QDialog(parent)
    , m_mode(mode)
    , m_replica(replica)
    , m_orphans(mode == Mode::Drain ? runNowhere(orphans, outside) : QStringList())
    , m_whoEdit(new QLineEdit(defaultWho()))
    , m_whyEdit(new QLineEdit)
    , m_typeLabel(new QLabel)
    , m_typedEdit(new QLineEdit)
    , m_confirmButton(new QPushButton(mode == Mode::Drain ? tr("Drain %1").arg(replica)
                                                          : tr("Undrain %1").arg(replica)))
{
    setObjectName(QStringLiteral("drainDialog"));
    setWindowTitle(mode == Mode::Drain ? tr("Drain replica") : tr("Undrain replica"));
    const QString where = target.isEmpty() ? QString() : tr(" on %1").arg(target);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(wrappedLabel(
            QStringLiteral("drainSummary"),
            mode == Mode::Drain
                    ? tr("Drain replica %1%2: it starts no new tick of any role, and its running "
                         "ticks end as they would (completed, released, no cooldown). It stays "
                         "drained across restarts until it is undrained.")
                              .arg(replica, where)
                    : tr("Undrain replica %1%2: it starts ticks again at once.")
                              .arg(replica, where)));
    if (const QStringList lines = outsideLines(outside); mode == Mode::Drain && !lines.isEmpty())
        layout->addWidget(
                wrappedLabel(QStringLiteral("outsideHolders"), lines.join(QLatin1Char('\n'))));
    if (!m_orphans.isEmpty()) {
        const QString roles = m_orphans.join(QStringLiteral(", "));
        layout->addWidget(wrappedLabel(
                QStringLiteral("lastReplicaWarning"),
                tr("%1 is the last eligible replica of %2: drained, %2 runs nowhere until "
                   "another replica is started or this one is undrained.")
                        .arg(replica, roles)));
        m_force = new QCheckBox(tr("Drain anyway, leaving %1 with no eligible replica").arg(roles));
        m_force->setObjectName(QStringLiteral("forceCheck"));
        layout->addWidget(m_force);
        connect(m_force, &QCheckBox::toggled, this, &DrainDialog::validate);
    }
    auto *form = new QFormLayout;
    m_whoEdit->setObjectName(QStringLiteral("whoEdit"));
    m_whoEdit->setMaxLength(MaxWhoLength);
    m_whyEdit->setObjectName(QStringLiteral("whyEdit"));
    m_whyEdit->setMaxLength(MaxWhyLength);
    m_whyEdit->setPlaceholderText(mode == Mode::Drain ? tr("required, e.g. deploy 1.4.1")
                                                      : tr("optional"));
    form->addRow(tr("&Who:"), m_whoEdit);
    form->addRow(tr("W&hy:"), m_whyEdit);
    layout->addLayout(form);
    m_typeLabel->setObjectName(QStringLiteral("typeLabel"));
    m_typeLabel->setText(tr("Production: type %1 to confirm").arg(replica));
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
        connect(edit, &QLineEdit::textChanged, this, &DrainDialog::validate);
    setTypedConfirmation(false);
}

DrainDialog::~DrainDialog() = default;

QString DrainDialog::who() const
{
    return m_whoEdit->text().trimmed();
}

QString DrainDialog::why() const
{
    return m_whyEdit->text().trimmed();
}

bool DrainDialog::force() const
{
    return m_force && m_force->isChecked();
}

void DrainDialog::setTypedConfirmation(bool required)
{
    m_typed = required;
    m_typeLabel->setVisible(required);
    m_typedEdit->setVisible(required);
    validate();
}

bool DrainDialog::canConfirm() const
{
    if (who().isEmpty() || (m_mode == Mode::Drain && why().isEmpty()))
        return false;
    if (m_force && !m_force->isChecked())
        return false;
    return !m_typed || m_typedEdit->text().trimmed() == m_replica;
}

QStringList DrainDialog::outsideLines(const OutsideHolders &outside)
{
    if (!outside.error.isEmpty())
        return {tr("Whether holders outside the replica registry run its roles could not be read: "
                   "%1")
                        .arg(outside.error)};
    QMap<QString, QStringList> byRole;
    for (const OutsideHolder &holder : outside.holders)
        byRole[holder.role].append(
                holder.holdsNow
                        ? tr("%1 (holds it now)").arg(holder.holderId)
                        : tr("%1 (seen %2 ago)")
                                  .arg(holder.holderId,
                                       StatusModel::formatSeconds(holder.lastSeenAgeSeconds)));
    QStringList lines;
    for (auto role = byRole.cbegin(); role != byRole.cend(); ++role)
        lines.append(tr("%1 also runs on holders outside the registry, which take no drain (%2 "
                        "seen in the last hour): %3")
                             .arg(role.key())
                             .arg(role.value().size())
                             .arg(role.value().join(QStringLiteral(", "))));
    return lines;
}

void DrainDialog::validate()
{
    m_confirmButton->setEnabled(canConfirm());
}

} // namespace leader::console
