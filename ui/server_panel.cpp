#include "ui/server_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>

#include "ui/format.h"

namespace ts::ui {
namespace {

QString millis(double ms) {
  return ms < 0 ? QString::fromUtf8("—") : formatDurationNs(ms * 1e6);
}

// A label that never widens the window: it takes the room there is (its text whole in
// the tooltip).
QLabel* roomyLabel(QWidget* parent, const char* name) {
  auto* label = new QLabel(parent);
  label->setObjectName(name);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  label->setMinimumWidth(80);
  return label;
}

}  // namespace

ServerPanel::ServerPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("serverPanel");
  url_ = roomyLabel(this, "serverUrl");
  model_ = roomyLabel(this, "serverModel");
  load_ = roomyLabel(this, "serverLoad");
  copy_url_ = new QPushButton(tr("Copy address"), this);
  copy_url_->setObjectName("serverCopyUrl");
  copy_model_ = new QPushButton(tr("Copy model id"), this);
  copy_model_->setObjectName("serverCopyModel");
  stop_ = new QPushButton(tr("Stop serving"), this);
  stop_->setObjectName("serverStop");

  table_ = new QTableWidget(0, 9, this);
  table_->setObjectName("serverRequests");
  table_->setHorizontalHeaderLabels({tr("Ended"), tr("Model"), tr("Finish"), tr("Prompt"),
                                     tr("Output"), tr("TTFT"), tr("TPOT"), tr("Temperature"),
                                     tr("Max tokens")});
  table_->horizontalHeaderItem(3)->setToolTip(tr("Prompt tokens (of which cached)"));
  table_->horizontalHeaderItem(5)->setToolTip(
      tr("Time to first token, from the request's "
         "arrival"));
  table_->horizontalHeaderItem(6)->setToolTip(tr("Mean time per output token after the first"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->setMinimumHeight(56);  // the header and a row; it grows with the window

  // Two lines of facts and buttons, then the table, which takes the window's height.
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(6, 2, 6, 2);
  grid->setVerticalSpacing(2);
  grid->addWidget(url_, 0, 0, 1, 2);
  grid->addWidget(copy_url_, 0, 2);
  grid->addWidget(stop_, 0, 3);
  grid->addWidget(model_, 1, 0);
  grid->addWidget(load_, 1, 1);
  grid->addWidget(copy_model_, 1, 2);
  grid->addWidget(table_, 2, 0, 1, 4);
  grid->setColumnStretch(0, 2);
  grid->setColumnStretch(1, 3);
  grid->setRowStretch(2, 1);

  connect(copy_url_, &QPushButton::clicked, this, [this] {
    QApplication::clipboard()->setText(url_text_);
    emit copied(tr("Copied the server's address %1.").arg(url_text_));
  });
  connect(copy_model_, &QPushButton::clicked, this, [this] {
    QApplication::clipboard()->setText(model_text_);
    emit copied(tr("Copied the model id %1.").arg(model_text_));
  });
  connect(stop_, &QPushButton::clicked, this, &ServerPanel::stopRequested);
  setStopped();
}

void ServerPanel::setServing(const QString& url, const QString& model, const QString& alias,
                             bool key_required) {
  url_text_ = url;
  model_text_ = model;
  const QString key = key_required ? tr(" · requests need the API key") : QString();
  url_->setText(tr("Serving at <b>%1</b> (OpenAI-compatible)%2").arg(url.toHtmlEscaped(), key));
  url_->setToolTip(url + key);
  model_->setText(alias.isEmpty() || alias == model
                      ? tr("Model id: <b>%1</b>").arg(model.toHtmlEscaped())
                      : tr("Model id: <b>%1</b> (also answers to \"%2\")")
                            .arg(model.toHtmlEscaped(), alias.toHtmlEscaped()));
  model_->setToolTip(model);
  copy_url_->setEnabled(true);
  copy_model_->setEnabled(true);
  stop_->setEnabled(true);
  running_ = waiting_ = 0;
  rate_ = 0;
  showCounts();
}

void ServerPanel::setServedCount(int n) {
  served_ = n;
  showCounts();
}

void ServerPanel::setStopped() {
  url_->setText(tr("Not serving. Provider → Serve the local model starts the server."));
  url_->setToolTip({});
  model_->clear();
  copy_url_->setEnabled(false);
  copy_model_->setEnabled(false);
  stop_->setEnabled(false);
  running_ = waiting_ = 0;
  rate_ = 0;
  url_text_.clear();
  showCounts();
}

void ServerPanel::setLoad(int running, int waiting, double tokens_per_second) {
  running_ = running;
  waiting_ = waiting;
  rate_ = tokens_per_second;
  showCounts();
}

void ServerPanel::showCounts() {
  load_->setText(tr("Running %1 · waiting %2 · %3 · %4 request(s) served")
                     .arg(running_)
                     .arg(waiting_)
                     .arg(formatRate(rate_))
                     .arg(served_));
}

QString ServerPanel::summary() const {
  QString where = url_text_;
  where.remove("http://").remove("/v1");
  return tr("● Serving %1 · %2 served").arg(where).arg(served_);
}

void ServerPanel::addRequest(const ServedRow& r) {
  ++served_;
  table_->insertRow(0);
  const QStringList cells = {r.at.toLocalTime().toString("HH:mm:ss"),
                             r.model.isEmpty() ? QString::fromUtf8("—") : r.model,
                             r.status + (r.stream ? tr(" (streamed)") : QString()),
                             r.cached_tokens > 0
                                 ? tr("%1 (%2 cached)").arg(r.prompt_tokens).arg(r.cached_tokens)
                                 : QString::number(r.prompt_tokens),
                             QString::number(r.completion_tokens),
                             millis(r.ttft_ms),
                             millis(r.tpot_ms),
                             QString::number(r.temperature, 'g', 3),
                             r.max_tokens};
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    if (c >= 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(0, c, item);
  }
  while (table_->rowCount() > kMaxRows) table_->removeRow(table_->rowCount() - 1);
  showCounts();
}

}  // namespace ts::ui
