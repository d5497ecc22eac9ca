import csv
import io

from ui.tables import csv_text


def test_rows_become_csv_with_every_key_as_a_column_and_blank_missing_cells():
    text = csv_text([{"gpu": "h100", "usd": 2.69}, {"gpu": "h20", "usd": None, "note": "no price"}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows == [{"gpu": "h100", "usd": "2.69", "note": ""}, {"gpu": "h20", "usd": "", "note": "no price"}]


def test_no_rows_give_an_empty_document():
    assert csv_text([]) == ""
