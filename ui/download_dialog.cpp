#include "ui/download_dialog.h"

#include <algorithm>

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ts::ui {
namespace {

struct Suggestion {
  const char* label;
  const char* repo;
  const char* file;
};
// Small models first: they download in seconds and run on any CPU. An empty file: the whole
// repository (Baichuan's own PyTorch checkpoints).
const Suggestion kSuggestions[] = {
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog", "TinyStories 15M (GGUF, Q4_0, ~10 MB)"),
     "ggml-org/models", "tinyllamas/stories15M-q4_0.gguf"},
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog",
                       "TinyStories 110M (llama2.c, ~440 MB; needs tokenizer.bin beside it)"),
     "karpathy/tinyllamas", "stories110M.bin"},
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog", "Baichuan2-7B-Chat (GGUF, Q4_0, ~4.4 GB)"),
     "second-state/Baichuan2-7B-Chat-GGUF", "Baichuan2-7B-Chat-Q4_0.gguf"},
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog",
                       "Baichuan2-7B-Chat from Baichuan (PyTorch .bin, bf16, ~15 GB, whole "
                       "repository)"),
     "baichuan-inc/Baichuan2-7B-Chat", ""},
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog",
                       "Baichuan2-13B-Chat from Baichuan (PyTorch .bin, 3 shards, ~28 GB)"),
     "baichuan-inc/Baichuan2-13B-Chat", ""},
    {QT_TRANSLATE_NOOP("ts::ui::DownloadDialog",
                       "Baichuan2-7B-Base from Baichuan (PyTorch .bin, 2 shards, ~15 GB)"),
     "baichuan-inc/Baichuan2-7B-Base", ""}};

QString humanRate(double bytes_per_s) {
  return bytes_per_s >= 1e6 ? QString::number(bytes_per_s / 1e6, 'f', 1) + " MB/s"
                            : QString::number(bytes_per_s / 1e3, 'f', 0) + " kB/s";
}
QString humanTime(double s) {
  if (s < 0) return "?";
  const int t = static_cast<int>(s + 0.5);
  return t >= 3600 ? QString("%1 h %2 min").arg(t / 3600).arg(t % 3600 / 60)
         : t >= 60 ? QString("%1 min %2 s").arg(t / 60).arg(t % 60)
                   : QString("%1 s").arg(t);
}

}  // namespace

DownloadDialog::DownloadDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Download a model"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  url_ = new QLineEdit(this);
  url_->setObjectName("downloadUrl");
  url_->setPlaceholderText("https://huggingface.co/owner/name/resolve/main/model.gguf");
  form->addRow(tr("Paste a &URL"), url_);
  repo_ = new QLineEdit(this);
  repo_->setObjectName("downloadRepo");
  repo_->setPlaceholderText("owner/name");
  form->addRow(tr("or &repository"), repo_);
  file_ = new QLineEdit(this);
  file_->setObjectName("downloadFile");
  file_->setPlaceholderText(tr("model.Q4_0.gguf — empty: the whole repository"));
  form->addRow(tr("and &file"), file_);
  layout->addLayout(form);
  suggestions_ = new QListWidget(this);
  suggestions_->setObjectName("downloadSuggestions");
  for (const Suggestion& s : kSuggestions) {
    auto* item = new QListWidgetItem(tr(s.label), suggestions_);
    item->setData(Qt::UserRole, s.repo);
    item->setData(Qt::UserRole + 1, s.file);
  }
  // Every suggestion visible, however long the status below grows.
  suggestions_->setMinimumHeight(suggestions_->sizeHintForRow(0) * suggestions_->count() +
                                 2 * suggestions_->frameWidth() + 4);
  connect(suggestions_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (!item) return;
    url_->clear();
    repo_->setText(item->data(Qt::UserRole).toString());
    file_->setText(item->data(Qt::UserRole + 1).toString());
  });
  layout->addWidget(new QLabel(tr("Suggestions:"), this));
  layout->addWidget(suggestions_);
  bar_ = new QProgressBar(this);
  bar_->setObjectName("downloadProgress");
  bar_->setRange(0, 1000);
  bar_->setValue(0);
  // No "0%" before anything starts: shown from the first request on, its room kept.
  QSizePolicy keep_room = bar_->sizePolicy();
  keep_room.setRetainSizeWhenHidden(true);
  bar_->setSizePolicy(keep_room);
  bar_->hide();
  layout->addWidget(bar_);
  status_ = new QLabel(this);
  status_->setObjectName("downloadStatus");
  status_->setWordWrap(true);
  layout->addWidget(status_);
  auto* buttons = new QHBoxLayout;
  start_ = new QPushButton(tr("&Download"), this);
  start_->setObjectName("downloadStart");
  start_->setDefault(true);
  pause_ = new QPushButton(tr("&Pause"), this);
  pause_->setObjectName("downloadPause");
  cancel_ = new QPushButton(tr("&Cancel"), this);
  cancel_->setObjectName("downloadCancel");
  use_ = new QPushButton(tr("&Use this model"), this);
  use_->setObjectName("downloadUse");
  use_->setEnabled(false);
  for (QPushButton* b : {start_, pause_, cancel_, use_}) buttons->addWidget(b);
  layout->addLayout(buttons);
  connect(start_, &QPushButton::clicked, this, &DownloadDialog::start);
  connect(pause_, &QPushButton::clicked, this, [this] {
    if (paused_) {
      paused_ = false;
      pause_->setText(tr("&Pause"));
      status_->setText(tr("Resuming…"));
      emit resumeRequested();
    } else {
      emit pauseRequested();
    }
  });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    emit cancelRequested();
    reject();
  });
  connect(use_, &QPushButton::clicked, this, [this] {
    emit useModelRequested(downloaded_);
    accept();
  });
  setRunning(false);
  // Wide enough for the suggestions and the placeholders to be read whole.
  resize(std::max(sizeHint().width(), 720), sizeHint().height());
}

void DownloadDialog::start() {
  emit startRequested(url_->text().trimmed(), repo_->text().trimmed(), file_->text().trimmed());
}

void DownloadDialog::onStarted(const QString& file) {
  setRunning(true);
  bar_->setValue(0);
  bar_->show();
  status_->setText(tr("Asking the hub for %1…").arg(file));
}

void DownloadDialog::onFileStarted(const QString& file, int index, int known) {
  file_status_ = known > index ? tr("File %1 of %2: %3").arg(index).arg(known).arg(file)
                               : tr("File %1: %2").arg(index).arg(file);
  status_->setText(file_status_);
}

void DownloadDialog::onRejected(const QString& problem) {
  status_->setText(problem);
}

void DownloadDialog::setRunning(bool running) {
  start_->setEnabled(!running);
  pause_->setEnabled(running);
  for (QWidget* w : std::initializer_list<QWidget*>{url_, repo_, file_, suggestions_})
    w->setEnabled(!running);
}

void DownloadDialog::onProgress(qint64 received, qint64 total, double bytes_per_s, double eta_s) {
  if (total > 0) bar_->setValue(static_cast<int>(1000.0 * received / total));
  const QString figures = tr("%1 of %2 MB · %3 · %4 left")
                              .arg(received / 1e6, 0, 'f', 1)
                              .arg(total > 0 ? QString::number(total / 1e6, 'f', 1) : "?")
                              .arg(humanRate(bytes_per_s), humanTime(eta_s));
  status_->setText(file_status_.isEmpty() ? figures : file_status_ + " — " + figures);
}

void DownloadDialog::onPaused() {
  paused_ = true;
  pause_->setText(tr("&Resume"));
  status_->setText(tr("Paused; the partial file is kept. Resume continues where it stopped."));
}

void DownloadDialog::onVerifying() {
  status_->setText(tr("Verifying the size and sha256…"));
}

void DownloadDialog::onFinished(const QString& path, const QString& checksum) {
  setRunning(false);
  bar_->setValue(1000);
  downloaded_ = path;
  status_->setText(tr("Saved %1 (%2).").arg(path, checksum));
  use_->setEnabled(true);
}

void DownloadDialog::onFailed(const QString& message, bool resumable) {
  setRunning(false);
  status_->setText(message + (resumable ? tr(" — press Download again to try again; what "
                                             "arrived is kept.")
                                        : QString()));
}

}  // namespace ts::ui
