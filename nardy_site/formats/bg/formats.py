"""Bulgarian date and time formats: Django's own Bulgarian locale leaves the date-and-time
formats undefined, so they fell back to the American "11/29/2026 8:06 p.m." Bulgarians write
"29.11.2026 г., 20:06"."""

# Django's Bulgarian month names are capitalised ("Ноември"); Bulgarian writes them in lower
# case, so the long formats are numeric too.
DATE_FORMAT = "d.m.Y г."
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "d.m.Y г., H:i"
SHORT_DATE_FORMAT = "d.m.Y"
SHORT_DATETIME_FORMAT = "d.m.Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3
