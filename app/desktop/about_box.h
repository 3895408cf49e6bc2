// Help → About: the versions of TokenScope, Qt and sentencepiece, and CUDA (driver,
// runtime, devices) or why it is not used.
#pragma once
#include <QObject>

class QWidget;

namespace ts {

class AboutBox : public QObject {
  Q_OBJECT
 public:
  static void show(QWidget* parent);
};

}  // namespace ts
