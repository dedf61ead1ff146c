#pragma once

#include <QWidget>

class QTableView;

namespace leader::console {

class FailoverModel;

// The takeovers measured so far, under a note whose tooltip says what a takeover is and what its
// gap measures. The demo shows it beside the failure panel, every column fitting its width;
// against a database it is a tab, its victims and successors holder ids (showHolderIds()).
class TakeoversPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TakeoversPane)

public:
    explicit TakeoversPane(FailoverModel *model, QWidget *parent = nullptr);
    ~TakeoversPane() override;

    // Widens the columns that show a holder id or the polls' fault for a database's takeovers.
    void showHolderIds();

private:
    QTableView *m_view = nullptr;
};

} // namespace leader::console
