"""Uneltele instructorului și ale celui care întreține cursul (nu ale cursantului):

- `validare` — execută toate notebook-urile și scrie raportul de referință (`make validare`);
- `profil_colab` — condițiile unui runtime Colab gratuit pentru validare (2 nuclee, T4 simulat,
  memoria RAM măsurată și limitată; `validare --profil-colab`);
- `verificare_rapida` — verificarea mașinii înaintea orei (`make verifica`);
- `plan_gpu` — rulările pe GPU ale referinței, în pași de câteva minute, reluabili (`make plan-gpu`);
- `durate` — duratele „Run All” din prima celulă a capitolelor și din README (`make durate`);
- `diapozitive` — diapozitivele atelierului, din notebook-uri (`make diapozitive`);
- `pagini` — capitolele executate de o validare, ca pagini HTML statice, fără rețea (`make pagini`);
- `fisa` — fișa atelierului, gata de tipărit pe o pagină A4 (`make fisa`);
- `depozit` — adresa cursului, insignele Colab și celula de pregătire (`make insigne`);
- `ilustratii` — desenele bucătăriei din `assets/bucataria/` (`make ilustratii`).

Cine pe cine importă: modulele de aici folosesc nucleul (`curs_compilare/`) și, la nevoie,
uneltele capitolelor (`curs_compilare.capitole`); nici nucleul, nici capitolele nu importă nimic
de aici. Testul `tests/test_arhitectura.py` verifică aceste reguli.
"""
