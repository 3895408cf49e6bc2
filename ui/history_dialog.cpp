#include "ui/history_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QProxyStyle>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStyleFactory>
#include <QStyleOptionHeader>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace ts::ui {
namespace {

// Logical columns (Benchmark came last and is moved beside Status on screen).
enum Column {
  Started,
  Provider,
  Model,
  Status,
  Prompt,
  Ttft,
  Tpot,
  Rate,
  Tokens,
  Tags,
  Note,
  Benchmark,
  ColumnCount
};
constexpr int kIdRole = Qt::UserRole + 1;

// A number cell that sorts as a number ("—" and last when unknown).
QStandardItem* numberItem(std::optional<double> value, int decimals) {
  auto* item = new QStandardItem(value ? QString::number(*value, 'f', decimals) : "—");
  item->setData(value ? *value : -1.0, Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

QStandardItem* textItem(const QString& text, bool editable = false) {
  auto* item = new QStandardItem(text);
  item->setData(text, Qt::UserRole);
  item->setEditable(editable);
  item->setToolTip(text);  // the whole text where the cell elides it
  return item;
}

// The sort arrow points down for Qt::DescendingOrder (newest first), up for ascending, in
// every style: QHeaderView hands the style SortUp for descending, which Fusion on Linux
// draws as an up arrow, read as "ascending".
class SortArrowStyle : public QProxyStyle {
 public:
  using QProxyStyle::QProxyStyle;
  void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                     const QWidget* widget) const override {
    const auto* header = qstyleoption_cast<const QStyleOptionHeader*>(option);
    if (element == PE_IndicatorHeaderArrow && header &&
        header->sortIndicator != QStyleOptionHeader::None) {
      const bool descending = header->sortIndicator == QStyleOptionHeader::SortUp;
      QStyleOption arrow = *option;
      return QProxyStyle::drawPrimitive(descending ? PE_IndicatorArrowDown : PE_IndicatorArrowUp,
                                        &arrow, painter, widget);
    }
    QProxyStyle::drawPrimitive(element, option, painter, widget);
  }
};

// Room for a button's label with the style's margin on both sides (Fusion's own size hint
// leaves "Import run logs…" touching its frame).
void padButton(QPushButton* button) {
  const int margin = button->style()->pixelMetric(QStyle::PM_ButtonMargin, nullptr, button);
  QString text = button->text();
  text.remove(QRegularExpression("&(?!&)"));
  button->setMinimumWidth(std::max(button->sizeHint().width(),
                                   button->fontMetrics().horizontalAdvance(text) + 2 * margin + 2));
}

// The prompt cut at its end ("Explain the difference…"): it is read from its start.
class ElideRightDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = Qt::ElideRight;
  }
};

// A number column's title on two lines ("TTFT\nms", "Decode\ntok/s"): as narrow as its
// numbers.
QString twoLines(QString title) {
  const qsizetype space = title.lastIndexOf(' ');
  if (space > 0) title[space] = '\n';
  return title;
}

}  // namespace

HistoryDialog::HistoryDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Run history"));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildFilters());
  buildTable();
  layout->addWidget(table_, 1);
  layout->addLayout(buildButtons());
  const QRect screen = this->screen()->availableGeometry();
  resize(std::min(1320, screen.width() * 92 / 100), std::min(600, screen.height() * 85 / 100));
}

QLayout* HistoryDialog::buildFilters() {
  auto* filters = new QHBoxLayout;
  provider_ = new QComboBox(this);
  provider_->setObjectName("historyProvider");
  model_ = new QComboBox(this);
  model_->setObjectName("historyModel");
  tag_ = new QLineEdit(this);
  tag_->setObjectName("historyTag");
  tag_->setPlaceholderText(tr("Tag"));
  search_ = new QLineEdit(this);
  search_->setObjectName("historySearch");
  search_->setPlaceholderText(tr("Search in prompts (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  // Long provider and model names must not squeeze the search field: the combos show 16
  // characters (the whole name on hover, and in the open list), the tag field a word or two,
  // the search field at least its placeholder and the clear button.
  for (QComboBox* combo : {provider_, model_}) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    connect(combo, &QComboBox::currentTextChanged, combo, &QComboBox::setToolTip);
  }
  tag_->setMaximumWidth(fontMetrics().horizontalAdvance(QString(14, 'n')));
  search_->setMinimumWidth(fontMetrics().horizontalAdvance(search_->placeholderText()) + 48);
  filters->addWidget(new QLabel(tr("Provider"), this));
  filters->addWidget(provider_);
  filters->addWidget(new QLabel(tr("Model"), this));
  filters->addWidget(model_);
  since_ = new QComboBox(this);
  since_->setObjectName("historySince");
  since_->addItem(tr("Any time"), 0);
  since_->addItem(tr("Last hour"), 3600);
  since_->addItem(tr("Last 24 hours"), 86400);
  since_->addItem(tr("Last 7 days"), 7 * 86400);
  since_->addItem(tr("Last 30 days"), 30 * 86400);
  filters->addWidget(since_);
  filters->addWidget(tag_);
  filters->addWidget(search_, 1);
  setChoices({}, {});
  const auto changed = [this] {
    if (!filling_) emit filterChanged(filter());
  };
  connect(provider_, &QComboBox::currentIndexChanged, this, changed);
  connect(model_, &QComboBox::currentIndexChanged, this, changed);
  connect(since_, &QComboBox::currentIndexChanged, this, changed);
  connect(tag_, &QLineEdit::textChanged, this, changed);
  connect(search_, &QLineEdit::textChanged, this, changed);
  auto* find = new QShortcut(QKeySequence::Find, this);
  connect(find, &QShortcut::activated, search_, qOverload<>(&QWidget::setFocus));
  return filters;
}

void HistoryDialog::buildTable() {
  model_rows_ = new QStandardItemModel(0, ColumnCount, this);
  model_rows_->setHorizontalHeaderLabels({tr("Started"), tr("Provider"), tr("Model"), tr("Status"),
                                          tr("Prompt"), twoLines(tr("TTFT ms")),
                                          twoLines(tr("TPOT ms")), twoLines(tr("Decode tok/s")),
                                          tr("Tokens"), tr("Tags"), tr("Note"), tr("Benchmark")});
  model_rows_->horizontalHeaderItem(Benchmark)->setToolTip(
      tr("The benchmark step a run belongs to: the swept setting and its value"));
  model_rows_->horizontalHeaderItem(Ttft)->setToolTip(
      tr("Time to first token: the first non-empty content chunk − the request start"));
  model_rows_->horizontalHeaderItem(Tpot)->setToolTip(
      tr("Time per output token: (E2E − TTFT) / (output tokens − 1)"));
  model_rows_->horizontalHeaderItem(Tags)->setToolTip(tr("Comma-separated; double-click to edit"));
  model_rows_->horizontalHeaderItem(Note)->setToolTip(tr("Double-click to edit"));
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_rows_);
  sorted_->setSortRole(Qt::UserRole);
  table_ = new QTableView(this);
  table_->setObjectName("historyTable");
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(Started, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  // one line per run; long names elided in the middle ("bench-7b…q4_k_m"), whole in the tooltip
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setItemDelegateForColumn(Prompt, new ElideRightDelegate(table_));
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  table_->verticalHeader()->hide();
  QHeaderView* header = table_->horizontalHeader();
  auto* arrows = new SortArrowStyle(QStyleFactory::create(style()->name()));
  arrows->setParent(this);
  header->setStyle(arrows);
  header->moveSection(header->visualIndex(Benchmark), header->visualIndex(Status) + 1);
  header->setSectionResizeMode(QHeaderView::Interactive);  // the user may drag any of them
  header->setSectionResizeMode(Prompt, QHeaderView::Stretch);
  header->setMinimumSectionSize(fontMetrics().horizontalAdvance("0000"));
  widest_ = QList<int>(ColumnCount, 0);
  connect(header, &QHeaderView::sectionResized, this, [this](int column) {
    if (!fitting_ && column != Prompt) sized_by_user_ = true;
  });
  connect(header, &QHeaderView::sortIndicatorChanged, this, &HistoryDialog::fitColumns);
  table_->viewport()->installEventFilter(this);
  connect(model_rows_, &QStandardItemModel::itemChanged, this, [this](QStandardItem* item) {
    if (filling_) return;
    filling_ = true;  // the tooltip follows the edit (itself an item change)
    item->setToolTip(item->text());
    filling_ = false;
    const qint64 id = model_rows_->item(item->row(), Started)->data(kIdRole).toLongLong();
    if (item->column() == Tags) {
      QStringList tags;
      for (const QString& t : item->text().split(',', Qt::SkipEmptyParts))
        if (!t.trimmed().isEmpty()) tags << t.trimmed();
      emit tagsEdited(id, tags);
    } else if (item->column() == Note) {
      emit noteEdited(id, item->text());
    }
  });
}

QLayout* HistoryDialog::buildButtons() {
  auto* buttons = new QHBoxLayout;
  auto* again = new QPushButton(tr("Run &again"), this);
  again->setObjectName("runAgainButton");
  again->setToolTip(tr("Send the same messages with the same provider and parameters"));
  auto* compare = new QPushButton(tr("&Compare"), this);
  compare->setObjectName("compareButton");
  compare->setToolTip(tr("Side by side: select 2 to 4 runs (Ctrl+Shift+C)"));
  compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  as_groups_ = new QCheckBox(tr("as &groups"), this);
  as_groups_->setObjectName("compareGroupsCheck");
  as_groups_->setToolTip(
      tr("Compare each selected run's whole benchmark group (its repeated "
         "runs) rather than the single run"));
  auto* remove = new QPushButton(tr("&Delete"), this);
  remove->setObjectName("deleteRunsButton");
  auto* import = new QPushButton(tr("&Import run logs…"), this);
  import->setObjectName("importLogsButton");
  auto* close = new QPushButton(tr("Close"), this);
  message_ = new QLabel(this);
  message_->setObjectName("historyMessage");
  for (QPushButton* b : {compare, again, remove, import, close}) padButton(b);
  buttons->addWidget(compare);
  buttons->addWidget(as_groups_);
  buttons->addWidget(again);
  buttons->addWidget(remove);
  buttons->addWidget(import);
  buttons->addWidget(message_, 1);
  buttons->addWidget(close);
  connect(again, &QPushButton::clicked, this, [this] {
    const QList<qint64> ids = selectedIds();
    if (ids.size() == 1)
      emit runAgainRequested(ids.front());
    else
      showMessage(tr("Select one run to run again."));
  });
  connect(remove, &QPushButton::clicked, this, &HistoryDialog::deleteSelected);
  connect(compare, &QPushButton::clicked, this, &HistoryDialog::compareSelected);
  auto* del = new QShortcut(QKeySequence::Delete, table_);
  connect(del, &QShortcut::activated, this, &HistoryDialog::deleteSelected);
  connect(import, &QPushButton::clicked, this, [this] {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Import run logs"), "./logs/infer", tr("Run logs (*.jsonl);;All files (*)"));
    for (const QString& f : files) emit importRequested(f);
  });
  connect(close, &QPushButton::clicked, this, &QDialog::accept);
  return buttons;
}

bool HistoryDialog::eventFilter(QObject* watched, QEvent* event) {
  if (watched == table_->viewport() && event->type() == QEvent::Resize) fitColumns();
  return QDialog::eventFilter(watched, event);
}

void HistoryDialog::fitColumns() {
  if (sized_by_user_ || fitting_) return;
  const QFontMetrics metrics(table_->font());
  QHeaderView* header = table_->horizontalHeader();
  const int cell =  // the item's text margins, and a little air
      2 * (table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1) + 6;
  const int header_margin = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  const auto chars = [&](int n) { return metrics.horizontalAdvance(QString(n, 'x')); };
  const auto title = [&](int column) {  // the widest line of its title, its arrow where sorted
    int widest = 0;
    for (const QString& line : model_rows_->horizontalHeaderItem(column)->text().split('\n'))
      widest = std::max(widest, header->fontMetrics().horizontalAdvance(line));
    const int arrow = header->sortIndicatorSection() == column ? metrics.height() + 4 : 0;
    return widest + header_margin + arrow;
  };
  // {column, least, most}: least shows the usual contents whole, most the longest
  struct Want {
    int column, least, most;
  };
  QList<Want> wants = {{Started, metrics.horizontalAdvance("2026-12-31 23:59:59"), 0},
                       {Status, widest_[Status], 0},
                       {Ttft, widest_[Ttft], 0},
                       {Tpot, widest_[Tpot], 0},
                       {Rate, widest_[Rate], 0},
                       {Tokens, widest_[Tokens], 0},
                       {Provider, metrics.horizontalAdvance("TaoToken gateway"), chars(24)},
                       {Model, chars(13), chars(30)},
                       {Benchmark, metrics.horizontalAdvance("concurrency 16"), chars(24)},
                       {Tags, chars(7), chars(14)},
                       {Note, chars(5), chars(18)}};
  int least = chars(10) + cell, room = 0;  // the prompt's least
  for (Want& w : wants) {
    const int contents = widest_[w.column] + cell;
    w.least = std::max(title(w.column), std::min(w.least + cell, contents));
    w.most = std::max(w.least, std::min(w.most + cell, contents));
    least += w.least;
    room += w.most - w.least;
  }
  // what is left beyond the least goes to the names up to their longest, the rest (by
  // stretching) to the prompt
  const int spare = std::max(0, table_->viewport()->width() - least);
  fitting_ = true;
  for (const Want& w : wants)
    table_->setColumnWidth(
        w.column,
        w.least + (room > 0 ? int(qint64(w.most - w.least) * std::min(spare, room) / room) : 0));
  fitting_ = false;
}

void HistoryDialog::compareSelected() {
  QList<qint64> ids = selectedIds();
  if (ids.size() == 1 && !as_groups_->isChecked()) {
    // One run: compare it with the run shown before it in time (the filters apply).
    const auto startedOf = [this](int row) {
      return model_rows_->item(row, Started)->data(Qt::UserRole).toLongLong();
    };
    int chosen = -1, previous = -1;
    for (int row = 0; row < model_rows_->rowCount(); ++row)
      if (model_rows_->item(row, Started)->data(kIdRole).toLongLong() == ids.front()) chosen = row;
    for (int row = 0; chosen >= 0 && row < model_rows_->rowCount(); ++row)
      if (startedOf(row) < startedOf(chosen) &&
          (previous < 0 || startedOf(row) > startedOf(previous)))
        previous = row;
    if (previous < 0)
      return showMessage(
          tr("No earlier run to compare this one with: select 2 to 4 runs (Ctrl+click)."));
    ids.prepend(model_rows_->item(previous, Started)->data(kIdRole).toLongLong());
    selectIds(ids);
  }
  if (ids.isEmpty() || (ids.size() < 2 && !as_groups_->isChecked()))
    return showMessage(tr("Select 2 to 4 runs to compare (Ctrl+click)."));
  if (ids.size() > 4) return showMessage(tr("At most 4 series fit side by side."));
  emit compareRequested(ids, as_groups_->isChecked());
}

void HistoryDialog::selectIds(const QList<qint64>& ids) {
  QItemSelection selection;
  for (int row = 0; row < sorted_->rowCount(); ++row)
    if (ids.contains(sorted_->index(row, Started).data(kIdRole).toLongLong()))
      selection.select(sorted_->index(row, 0), sorted_->index(row, ColumnCount - 1));
  table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

void HistoryDialog::setChoices(const QStringList& providers, const QStringList& models) {
  filling_ = true;
  for (auto [combo, values] : {std::pair{provider_, providers}, std::pair{model_, models}}) {
    const QString current = combo->currentData().toString();
    combo->clear();
    combo->addItem(tr("Any"), QString());
    for (const QString& v : values) {
      combo->addItem(v, v);
      combo->setItemData(combo->count() - 1, v, Qt::ToolTipRole);
    }
    combo->setCurrentIndex(std::max(0, combo->findData(current)));
  }
  filling_ = false;
}

void HistoryDialog::setRows(const QList<HistoryRow>& rows) {
  filling_ = true;
  model_rows_->removeRows(0, model_rows_->rowCount());
  for (const HistoryRow& r : rows) {
    auto* started = textItem(r.started.toLocalTime().toString("yyyy-MM-dd HH:mm:ss"));
    started->setData(r.started.toMSecsSinceEpoch(), Qt::UserRole);
    started->setData(r.id, kIdRole);
    QString prompt = r.prompt.simplified();
    if (prompt.size() > 160) prompt = prompt.left(159) + "…";
    auto* prompt_item = textItem(prompt);
    prompt_item->setToolTip(r.prompt.left(2000));
    auto* tokens = numberItem(static_cast<double>(r.output_tokens), 0);
    auto* benchmark = textItem(r.benchmark);
    // the step, and the whole group it belongs to (its sweep's start)
    benchmark->setToolTip(r.group.isEmpty() ? r.benchmark : r.benchmark + "\n" + r.group);
    model_rows_->appendRow({started, textItem(r.provider), textItem(r.model), textItem(r.status),
                            prompt_item, numberItem(r.ttft_ms, 1), numberItem(r.tpot_ms, 2),
                            numberItem(r.decode_tok_s, 1), tokens,
                            textItem(r.tags.join(", "), true), textItem(r.note, true), benchmark});
  }
  filling_ = false;
  measureRows();
  fitColumns();
  message_->setText(tr("%n run(s)", nullptr, static_cast<int>(rows.size())));
}

void HistoryDialog::measureRows() {
  const QFontMetrics metrics(table_->font());
  widest_.fill(0);
  for (int row = 0; row < model_rows_->rowCount(); ++row)
    for (int column = 0; column < ColumnCount; ++column)
      if (column != Prompt)
        widest_[column] = std::max(
            widest_[column], metrics.horizontalAdvance(model_rows_->item(row, column)->text()));
}

HistoryFilter HistoryDialog::filter() const {
  const int seconds = since_->currentData().toInt();
  return {provider_->currentData().toString(), model_->currentData().toString(),
          tag_->text().trimmed(), search_->text().trimmed(),
          seconds > 0 ? QDateTime::currentDateTimeUtc().addSecs(-seconds) : QDateTime()};
}

QList<qint64> HistoryDialog::selectedIds() const {
  QList<qint64> ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows(Started))
    ids << sorted_->data(index, kIdRole).toLongLong();
  return ids;
}

int HistoryDialog::rowCount() const {
  return model_rows_->rowCount();
}

void HistoryDialog::showMessage(const QString& text) {
  message_->setText(text);
}

void HistoryDialog::deleteSelected() {
  const QList<qint64> ids = selectedIds();
  if (ids.isEmpty()) return showMessage(tr("Select the runs to delete."));
  const auto answer =
      QMessageBox::question(this, tr("Delete runs"),
                            tr("Delete %n run(s) and their recorded events? This cannot be undone.",
                               nullptr, static_cast<int>(ids.size())));
  if (answer == QMessageBox::Yes) emit deleteRequested(ids);
}

}  // namespace ts::ui
