// A read-only table in a dialog, filled row by row: the connection doctor's steps and the
// effective configuration use it. Widgets only; the rows arrive as text.
#pragma once
#include <QDialog>
#include <QStringList>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ts::ui {

class TableDialog : public QDialog {
  Q_OBJECT
 public:
  TableDialog(const QString& title, const QStringList& headers, QWidget* parent = nullptr);
  void clearRows();
  // `good`: true paints the first cell green, false red, nullopt leaves it plain.
  void addRow(const QStringList& cells, std::optional<bool> good = std::nullopt,
              const QString& tooltip = {});
  void setSummary(const QString& text);
  QPushButton* actionButton() const { return action_; }  // hidden until given a label
  void setActionLabel(const QString& label);
  QTableWidget* table() const { return table_; }

 signals:
  void actionClicked();

 private:
  void fitColumns();  // after each row: the columns as wide as their cells, the last stretched

  QTableWidget* table_;
  QLabel* summary_;
  QPushButton* action_;
};

}  // namespace ts::ui
