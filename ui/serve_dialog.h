// Provider → Serve settings: where Serve the local model listens (this computer only, or
// every network) and whether it requires an API key (kept in the keychain; made and shown
// once by the app). Widgets only: the app says whether a key is stored and what warning to
// show, and acts on the choice and on "New key".
#pragma once
#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace ts::ui {

struct ServeChoice {
  bool every_network = false;  // listen on 0.0.0.0, else 127.0.0.1
  bool require_key = false;    // requests need Authorization: Bearer <key>
  bool operator==(const ServeChoice&) const = default;
};

// What the keychain holds for Serve.
enum class ServeKeyState { Checking, Stored, Missing, Unavailable };

class ServeDialog : public QDialog {
  Q_OBJECT
 public:
  // `serving`: Serve runs now (the choice applies at its next start).
  ServeDialog(const ServeChoice& choice, bool serving, QWidget* parent = nullptr);
  ServeChoice choice() const;
  // The warning for the choice as it stands ("" hides it): shown in red beside it.
  void setWarning(const QString& text);
  // `detail`: why the keychain cannot be used (Unavailable).
  void setKeyState(ServeKeyState state, const QString& detail = {});

 signals:
  void choiceChanged(const ts::ui::ServeChoice& choice);  // as the user changes it
  void newKeyRequested();

 protected:
  void resizeEvent(QResizeEvent* event) override;  // fitHeight at the new width
  bool event(QEvent* event) override;              // fitHeight once the layout is redone

 private:
  void refresh();
  // Tall enough for the wrapped texts as they are now at this width, and never shorter
  // (the minimum height follows the width: a squeezed label would cut its lines).
  void fitHeight();

  QRadioButton* loopback_;
  QRadioButton* every_network_;
  QCheckBox* require_key_;
  QLabel* key_state_;
  QPushButton* new_key_;
  QLabel* warning_;
  ServeKeyState key_ = ServeKeyState::Checking;
  QString key_detail_;
};

// The key, once: copy it now, it is not shown again (a new one can be made).
class ServeKeyDialog : public QDialog {
  Q_OBJECT
 public:
  ServeKeyDialog(const QString& key, QWidget* parent = nullptr);

 signals:
  void copied(const QString& status);  // for the status bar (never the key)

 private:
  QLineEdit* key_;
};

}  // namespace ts::ui
