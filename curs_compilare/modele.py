"""Modelul cursului: `ReteaTransformer`, un transformer mic de tip decodor (ca un GPT în
miniatură), definit o singură dată și folosit de mai multe capitole.

Pe lângă model: o configurație aleasă după mașină (`configuratie_pentru_mediu`), loturi
aleatoare de jetoane (`lot_aleator`), funcția de pierdere, evaluarea unui lot fără gradienți,
un pas de antrenare, precizia potrivită mașinii (`precizie_pentru_mediu`, `cu_precizie`) și
optimizatorul (`optimizator_pentru`).
Dropout-ul lipsește intenționat: așa, varianta eager și cea compilată se pot compara direct,
valoare cu valoare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .mediu import detecteaza_mediul, dimensiune, gpu_mare

__all__ = [
    "ConfiguratieTransformer",
    "BlocTransformer",
    "ReteaTransformer",
    "configuratie_pentru_mediu",
    "lot_aleator",
    "pierdere",
    "pierdere_evaluare",
    "pas_antrenare",
    "pierdere_initiala_asteptata",
    "precizie_pentru_mediu",
    "cu_precizie",
    "optimizator_pentru",
]


@dataclass(frozen=True)
class ConfiguratieTransformer:
    """Mărimile unui `ReteaTransformer` și ale loturilor cu care e hrănit."""

    vocabular: int = 1024
    dim_model: int = 128
    nr_capete: int = 4
    nr_straturi: int = 2
    lungime: int = 64
    marime_lot: int = 8

    def __post_init__(self):
        if self.dim_model % self.nr_capete:
            raise ValueError("dim_model trebuie să se împartă exact la nr_capete")


def configuratie_pentru_mediu() -> ConfiguratieTransformer:
    """Configurația potrivită mașinii.

    - Pe un GPU: un model de limbaj mic, dar cu lucru cât să țină GPU-ul ocupat (limitat de GPU,
      nu de procesorul care lansează kernel-urile): vocabularul lui GPT-2 (50 257 de jetoane,
      rotunjit la 50 304, multiplu de 64), 4 straturi de lățime 512, 16 secvențe de câte 1 024
      de jetoane pe lot. Pe un GPU cu mai puțin de 40 GiB de memorie (un T4), 4 secvențe.
    - Pe procesor: mic, pentru că acolo compilarea C++ pe două nuclee durează.
    - Sub teste (profilul rapid): minuscul.
    """
    lot_gpu = 16 if gpu_mare() else 4  # memoria GPU-ului, după `mediu` (un T4 simulat e mic)
    return ConfiguratieTransformer(
        vocabular=dimensiune(gpu=50304, cpu=2048, rapid=256),
        dim_model=dimensiune(gpu=512, cpu=128, rapid=32),
        nr_capete=dimensiune(gpu=8, cpu=4, rapid=2),
        nr_straturi=dimensiune(gpu=4, cpu=2, rapid=1),
        lungime=dimensiune(gpu=1024, cpu=64, rapid=16),
        marime_lot=dimensiune(gpu=lot_gpu, cpu=8, rapid=4),
    )


class BlocTransformer(nn.Module):
    """Un strat: atenție cauzală cu mai multe capete, apoi o rețea feed-forward, fiecare cu
    normalizare înainte (pre-LN) și conexiune reziduală."""

    def __init__(self, dim_model: int, nr_capete: int):
        super().__init__()
        self.nr_capete = nr_capete
        self.norma_atentie = nn.LayerNorm(dim_model)
        self.qkv = nn.Linear(dim_model, 3 * dim_model)
        self.proiectie = nn.Linear(dim_model, dim_model)
        self.norma_ff = nn.LayerNorm(dim_model)
        self.ff_sus = nn.Linear(dim_model, 4 * dim_model)
        self.ff_jos = nn.Linear(4 * dim_model, dim_model)

    def atentie(self, x: torch.Tensor) -> torch.Tensor:
        lot, lungime, canale = x.shape
        q, k, v = self.qkv(x).split(canale, dim=-1)
        forma = (lot, lungime, self.nr_capete, canale // self.nr_capete)
        q, k, v = (t.view(forma).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proiectie(y.transpose(1, 2).reshape(lot, lungime, canale))

    def feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ff_jos(F.gelu(self.ff_sus(x), approximate="tanh"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.atentie(self.norma_atentie(x))
        return x + self.feed_forward(self.norma_ff(x))


class ReteaTransformer(nn.Module):
    """Model de limbaj mic: jetoane (lot × lungime) → logit-uri (lot × lungime × vocabular)."""

    def __init__(self, configuratie: ConfiguratieTransformer | None = None, **marimi):
        super().__init__()
        if configuratie is None:
            configuratie = ConfiguratieTransformer(**marimi)
        elif marimi:
            raise TypeError("dă fie o configurație, fie mărimile, nu pe amândouă")
        self.configuratie = configuratie
        c = configuratie
        self.incorporare = nn.Embedding(c.vocabular, c.dim_model)
        self.pozitii = nn.Embedding(c.lungime, c.dim_model)
        self.straturi = nn.ModuleList(BlocTransformer(c.dim_model, c.nr_capete) for _ in range(c.nr_straturi))
        self.norma_finala = nn.LayerNorm(c.dim_model)
        self.iesire = nn.Linear(c.dim_model, c.vocabular)
        self.apply(self._initializeaza)

    @staticmethod
    def _initializeaza(modul: nn.Module):
        if isinstance(modul, (nn.Linear, nn.Embedding)):
            nn.init.normal_(modul.weight, mean=0.0, std=0.02)
        if isinstance(modul, nn.Linear) and modul.bias is not None:
            nn.init.zeros_(modul.bias)

    def forward(self, intrari: torch.Tensor) -> torch.Tensor:
        lungime = intrari.shape[1]
        pozitii = torch.arange(lungime, device=intrari.device)
        x = self.incorporare(intrari) + self.pozitii(pozitii)
        for strat in self.straturi:
            x = strat(x)
        return self.iesire(self.norma_finala(x))

    def numar_parametri(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def flops_pas_antrenare(self, marime_lot: int, lungime: int) -> float:
        """Estimarea obișnuită a operațiilor în virgulă mobilă ale unui pas de antrenare:
        6 · parametri · jetoane (înainte 2, înapoi 4), plus atenția."""
        c = self.configuratie
        jetoane = marime_lot * lungime
        atentie = 12 * c.nr_straturi * c.dim_model * lungime * jetoane / 2  # masca cauzală: jumătate
        return 6 * self.numar_parametri() * jetoane + atentie


def lot_aleator(configuratie: ConfiguratieTransformer, dispozitiv=None, generator_seed: int = 0):
    """Un lot de jetoane aleatoare și țintele lui (aceleași jetoane, deplasate cu o poziție)."""
    generator = torch.Generator().manual_seed(generator_seed)
    jetoane = torch.randint(
        configuratie.vocabular, (configuratie.marime_lot, configuratie.lungime + 1), generator=generator
    )
    jetoane = jetoane.to(dispozitiv or "cpu")
    return jetoane[:, :-1].contiguous(), jetoane[:, 1:].contiguous()


def pierdere(model: nn.Module, intrari: torch.Tensor, tinte: torch.Tensor) -> torch.Tensor:
    """Entropia încrucișată a predicției următorului jeton."""
    logituri = model(intrari)
    return F.cross_entropy(logituri.flatten(0, 1), tinte.flatten())


@torch.no_grad()
def pierdere_evaluare(model: nn.Module, intrari: torch.Tensor, tinte: torch.Tensor) -> torch.Tensor:
    """Evaluarea pe un lot, ca într-o buclă de validare: înainte și pierderea, fără gradienți."""
    return pierdere(model, intrari, tinte)


def pas_antrenare(calcul_pierdere, optimizator: torch.optim.Optimizer, intrari, tinte) -> torch.Tensor:
    """Un pas complet: înainte (*forward*), înapoi (*backward*), actualizarea parametrilor.

    `calcul_pierdere(intrari, tinte)` poate fi varianta eager sau cea compilată; optimizatorul
    rulează la fel în ambele cazuri. Întoarce pierderea (detașată)."""
    optimizator.zero_grad(set_to_none=True)
    valoare = calcul_pierdere(intrari, tinte)
    valoare.backward()
    optimizator.step()
    return valoare.detach()


def pierdere_initiala_asteptata(configuratie: ConfiguratieTransformer) -> float:
    """Pierderea unui model care încă ghicește uniform: ln(vocabular)."""
    return math.log(configuratie.vocabular)


def precizie_pentru_mediu() -> torch.dtype | None:
    """Tipul de date în care rulează calculul pe mașina ta, cu `torch.autocast`:
    `bfloat16` pe un GPU care îl are nativ (de la capabilitatea 8.0: A100, H100, H200),
    `float16` pe un GPU mai vechi (un T4), iar pe procesor None: acolo calculul rămâne în
    `float32` (bfloat16 pe procesor e rapid doar pe unele procesoare). Capabilitatea vine din
    `mediu.detecteaza_mediul` (un T4 simulat primește float16)."""
    mediu = detecteaza_mediul()
    if not mediu.are_gpu:
        return None
    return torch.bfloat16 if mediu.bf16_nativ else torch.float16


def cu_precizie(functie, precizie: torch.dtype | None, dispozitiv: str = "cuda"):
    """`functie`, rulată sub `torch.autocast(dispozitiv, dtype=precizie)`: produsele de
    matrice și atenția în `precizie`, normalizările și pierderea în `float32`, ponderile rămân
    `float32`. Cu `precizie=None`, `functie` rămâne neschimbată."""
    if precizie is None:
        return functie

    def cu_autocast(*argumente, **argumente_numite):
        with torch.autocast(dispozitiv, dtype=precizie):
            return functie(*argumente, **argumente_numite)

    cu_autocast.__name__ = getattr(functie, "__name__", "functie") + "_" + str(precizie).removeprefix("torch.")
    return cu_autocast


def optimizator_pentru(model: nn.Module, rata_invatare: float = 1e-3) -> torch.optim.Optimizer:
    """AdamW pentru `model`; pe GPU în varianta fuzionată (*fused*: câteva kernel-uri pentru toți
    parametrii, în loc de câte unul pe tensor), ca pasul optimizatorului să cântărească puțin și
    la fel în orice variantă."""
    pe_gpu = next(model.parameters()).is_cuda
    return torch.optim.AdamW(model.parameters(), lr=rata_invatare, fused=pe_gpu or None)
