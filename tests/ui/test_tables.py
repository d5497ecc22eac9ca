import csv
import io

from ui.tables import rows_to_csv


def test_rows_become_csv_with_every_key_as_a_column_and_blank_missing_cells():
    text = rows_to_csv([{"gpu": "h100", "usd": 2.69}, {"gpu": "h20", "usd": None, "note": "no price"}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows == [{"gpu": "h100", "usd": "2.69", "note": ""}, {"gpu": "h20", "usd": "", "note": "no price"}]


def test_no_rows_give_an_empty_document():
    assert rows_to_csv([]) == ""
