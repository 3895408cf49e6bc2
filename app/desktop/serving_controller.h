// Provider → Serve the local model: the current local provider's model behind the
// OpenAI-compatible server on 127.0.0.1 while the menu item is checked.
#pragma once
#include <QObject>

#include "app/local/local_serving.h"
#include "ui/main_window.h"

namespace ts {

class ServingController : public QObject {
  Q_OBJECT
 public:
  explicit ServingController(ui::MainWindow* window, QObject* parent = nullptr);
  LocalServing& serving() { return serving_; }

 private:
  ui::MainWindow* window_;
  LocalServing serving_;
};

}  // namespace ts
