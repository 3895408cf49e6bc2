// The first-run welcome: four ways in -- use the demo model, add an API key (TaoToken or
// any OpenAI-compatible endpoint), open a local model, download a model -- and Skip.
// Widgets only: the app acts on the choice (app/desktop/first_run.h).
#pragma once
#include <QDialog>

namespace ts::ui {

class WelcomeDialog : public QDialog {
  Q_OBJECT
 public:
  enum class Choice { Skip, DemoModel, ApiKey, LocalModel, Download };
  explicit WelcomeDialog(QWidget* parent = nullptr);
  Choice choice() const { return choice_; }

 signals:
  void chosen(ts::ui::WelcomeDialog::Choice choice);

 private:
  void choose(Choice choice);
  Choice choice_ = Choice::Skip;
};

}  // namespace ts::ui
