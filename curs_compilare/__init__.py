"""Pachetul de ajutor al cursului „Compilarea în PyTorch 2”.

Module:
- `mediu` — ce mașină rulează cursul (CPU/GPU/Colab) și profilul de dimensiuni;
- `masurare` — măsurători corecte, GB/s și TFLOP/s, kernel-uri numărate, plafonul de copiere;
- `modele` — `ReteaTransformer`, modelul cursului, cu loturi și un pas de antrenare;
- `inspectie` — ce face `torch.compile` dedesubt: jurnale, grafuri capturate, explicații, recompilări;
- `grafice` — graficele comune, cu etichete în română;
- `explorator` — exploratoare ipywidgets (7.7 și 8);
- `cifre` — cifrele-cheie ale capitolelor și rezultatele de referință;
- `exercitii` — verificarea exercițiilor, câte un modul pe capitol;
- `validare` — comanda instructorului (`make validare`);
- `depozit` — adresa publică a cursului și insignele „Open in Colab”.
"""

from .mediu import afiseaza_mediul, detecteaza_mediul, dimensiune, sincronizeaza

__version__ = "0.1.0"

__all__ = ["afiseaza_mediul", "detecteaza_mediul", "dimensiune", "sincronizeaza"]
