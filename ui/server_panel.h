// The server panel (a tool window while Provider → Serve runs): the address clients use, with a
// Copy button; the model id they must name (and its alias), with Copy; the engine's load
// now (requests running and waiting, tokens/s); the last requests served with their
// TTFT and TPOT; and Stop serving. It takes values and emits intents, nothing more.
#pragma once
#include <QDateTime>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ts::ui {

// One finished request, as the table shows it.
struct ServedRow {
  QDateTime at;           // when it ended (local time shown)
  QString model;          // the id the client named ("" : none)
  QString status;         // "stop" | "length" | "cancelled" | "error: …"
  int prompt_tokens = 0;  // of which cached_tokens came from the prefix cache
  int cached_tokens = 0;
  int completion_tokens = 0;
  double ttft_ms = -1;     // -1: no token came
  double tpot_ms = -1;     // -1: fewer than two tokens
  double temperature = 0;  // as it ran (the client's, else the model's suggestion)
  QString max_tokens;      // the client's value, or "—" when it sent none
  bool stream = false;
};

class ServerPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxRows = 100;  // older requests leave the table (History keeps them)

  explicit ServerPanel(QWidget* parent = nullptr);
  // url: the base URL (…/v1); model: the id to name; alias: another id it answers to.
  void setServing(const QString& url, const QString& model, const QString& alias,
                  bool key_required);
  void setStopped();
  void setLoad(int running, int waiting, double tokens_per_second);
  void addRequest(const ServedRow& row);
  int servedCount() const { return served_; }
  // The count shown beside the rows: a rebuilt panel replays at most kMaxRows of them.
  void setServedCount(int n);
  // "● Serving 127.0.0.1:8080 · 3 served": for the status bar's indicator.
  QString summary() const;

 signals:
  void stopRequested();
  void copied(const QString& what);  // a sentence for the status bar

 private:
  void showCounts();

  QLabel* url_;
  QLabel* model_;
  QLabel* load_;
  QPushButton* copy_url_;
  QPushButton* copy_model_;
  QPushButton* stop_;
  QTableWidget* table_;
  QString url_text_, model_text_;
  int served_ = 0;
  int running_ = 0, waiting_ = 0;
  double rate_ = 0;
};

}  // namespace ts::ui
