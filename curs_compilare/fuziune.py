"""Fuziunea kernel-urilor: lanțurile de operații din capitolul 03, octeții pe care îi mută
și măsurarea lor pe mai multe dimensiuni.

În bucătăria cursului: eager face câte un drum la cămară (memoria GPU-ului) pentru fiecare
operație — citește tensorul, scrie rezultatul intermediar înapoi. Un kernel fuzionat face un
singur drum: citește intrarea o dată, gătește totul în registre, scrie rezultatul o dată.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import torch

from .inspectie import limita_recompilari
from .masurare import Masuratoare, compara

__all__ = [
    "lant_punctual",
    "NUMAR_OPERATII_LANT",
    "PASI_LANT",
    "lant_de_operatii",
    "octeti_lant",
    "masoara_pe_dimensiuni",
]


def lant_punctual(x: torch.Tensor) -> torch.Tensor:
    """Lanțul capitolului: patru operații punctuale, `(x * 2 + 1).relu() * 3`.

    În modul eager înseamnă patru kernel-uri, fiecare citind și scriind un tensor întreg."""
    return (x * 2 + 1).relu() * 3


#: Câte operații (deci câte kernel-uri în modul eager) are `lant_punctual`.
NUMAR_OPERATII_LANT = 4

#: Pașii din care se construiesc lanțurile mai lungi, în ordine, reluați ciclic.
PASI_LANT = ("x = x * 2", "x = x + 1", "x = torch.relu(x)", "x = x * 3")
_FUNCTII_PASI = (lambda x: x * 2, lambda x: x + 1, torch.relu, lambda x: x * 3)


def lant_de_operatii(numar_operatii: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """Un lanț de `numar_operatii` operații punctuale ieftine (×2, +1, relu, ×3, apoi din nou).

    Fiecare lanț întors are propriul obiect de cod: Dynamo asociază compilările cu obiectul de
    cod, așa că lanțurile construite separat nu se încurcă între ele și nici nu-și consumă
    unul altuia limita de recompilări. Pașii, ca text, sunt în `.sursa`.
    """
    if not isinstance(numar_operatii, int) or numar_operatii < 1:
        raise ValueError("numar_operatii trebuie să fie un întreg ≥ 1")
    pasi = [_FUNCTII_PASI[i % len(_FUNCTII_PASI)] for i in range(numar_operatii)]

    def lant(x):
        for pas in pasi:
            x = pas(x)
        return x

    nume = f"lant_{numar_operatii}_operatii"
    # `replace` construiește un obiect de cod nou, cu un cache Dynamo gol. (Nu folosim `exec`:
    # pe unele versiuni de PyTorch, funcțiile fără fișier sursă ajung toate la același obiect de cod.)
    lant.__code__ = lant.__code__.replace(co_name=nume)
    lant.__name__ = lant.__qualname__ = nume
    lant.sursa = "\n".join(PASI_LANT[i % len(PASI_LANT)] for i in range(numar_operatii))
    return lant


def octeti_lant(numar_elemente: int, numar_operatii: int, octeti_pe_element: int = 4) -> tuple[int, int]:
    """Octeții mutați de un lanț de operații punctuale cu o intrare, ca pereche (eager, fuzionat).

    Eager: fiecare operație citește un tensor întreg și scrie unul întreg → 2 × operații × N.
    Fuzionat: intrarea se citește o dată, rezultatul se scrie o dată → 2 × N.
    """
    tensor = numar_elemente * octeti_pe_element
    return 2 * numar_operatii * tensor, 2 * tensor


def masoara_pe_dimensiuni(
    variante: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    numere_elemente: Sequence[int],
    dispozitiv: torch.device | str,
    dtype: torch.dtype = torch.float32,
    timp_minim_s: float = 0.2,
) -> dict[str, list[Masuratoare]]:
    """Măsoară fiecare variantă pe tensori de fiecare dimensiune și întoarce {nume: [măsurători]}.
    La fiecare dimensiune, variantele sunt măsurate cu același ceas, intercalat, în runde
    (`compara`).

    Variantele compilate ar trebui construite cu `dynamic=False`: altfel, a doua dimensiune
    declanșează formele dinamice automate, iar de acolo încolo se măsoară un kernel generic. Fiindcă
    o compilare statică pe dimensiune înseamnă mai multe recompilări decât limita implicită
    (8), limita e ridicată cât ține măsurătoarea.
    """
    rezultate: dict[str, list[Masuratoare]] = {nume: [] for nume in variante}
    with limita_recompilari(max(8, 2 * len(numere_elemente) + 2)):
        for numar in numere_elemente:
            x = torch.randn(int(numar), device=dispozitiv, dtype=dtype)
            comparatie = compara(variante, x, timp_minim_s=timp_minim_s)
            for nume in variante:
                rezultate[nume].append(comparatie[nume])
            del x
    return rezultate
