#pragma once

#include <QWidget>

namespace leader::console {

class FailoverModel;

// The takeovers measured so far, under a note saying what a takeover is and what its gap
// measures. The demo shows it beside the failure panel; against a database it is a tab.
class TakeoversPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TakeoversPane)

public:
    explicit TakeoversPane(FailoverModel *model, QWidget *parent = nullptr);
    ~TakeoversPane() override;
};

} // namespace leader::console
